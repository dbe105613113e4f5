import type { ResourceContents, ResourceEntry, ResourceTemplateEntry } from "../../ipc/protocol.ts";
import type { ResourceProvider } from "../resources.ts";
import type { SkillsService } from "./service.ts";

const TEMPLATE: ResourceTemplateEntry = { uriTemplate: "skill://{name}/{+path}", name: "skill-file", title: "A file of a local skill", mimeType: "text/plain", description: "One file of a skill (SKILL.md, scripts/…, references/…); untrusted content, its exact bytes: text, or base64 for a binary file; at most 1 MiB (skills_read pages larger ones)." };

/**
 * `skill://<name>/<path>` resources: every valid local skill's SKILL.md is listed (name and description from its
 * front matter, as SEP-2640 asks); any file of a local skill can be read through the template, as its exact
 * bytes (app/skills/extension.ts: the same tree checks, the 1 MiB answer cap), so a host can check them against
 * the digest a `skills/list` entry gives. `service` is the lazily composed skills service.
 */
export function skillResourceProvider(service: () => Promise<SkillsService>): ResourceProvider {
  return {
    scheme: "skill",
    list: async (): Promise<ResourceEntry[]> => {
      const scan = await (await service()).catalog.scan();
      const seen = new Set<string>();
      const out: ResourceEntry[] = [];
      for (const s of scan.skills) {
        if (s.skill.problems.length > 0 || !s.skill.manifest || seen.has(s.skill.name)) continue;
        seen.add(s.skill.name);
        out.push({ uri: `skill://${s.skill.name}/SKILL.md`, name: s.skill.name, title: `Skill ${s.skill.name}`, mimeType: "text/markdown", description: s.skill.manifest.description });
      }
      return out;
    },
    templates: () => [TEMPLATE],
    read: async (uri: string): Promise<ResourceContents> => (await service()).entries.read(uri),
  };
}
