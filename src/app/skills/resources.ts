import { HostgateError } from "../../core/errors.ts";
import type { ResourceContents, ResourceEntry, ResourceTemplateEntry } from "../../ipc/protocol.ts";
import type { ResourceProvider } from "../resources.ts";
import type { SkillsService } from "./service.ts";

const TEMPLATE: ResourceTemplateEntry = { uriTemplate: "skill://{name}/{+path}", name: "skill-file", title: "A file of a local skill", mimeType: "text/plain", description: "One file of a skill (SKILL.md, scripts/…, references/…); untrusted content, at most 256 KiB." };
const URI = /^skill:\/\/([a-z0-9-]{1,64})\/(.{1,1024})$/s;

/**
 * `skill://<name>/<path>` resources: every valid local skill's SKILL.md is listed; any file of a skill can be
 * read through the template. Reads go through skills_read (same caps, same tree checks, same errors), so a
 * resource is never a way around the tool's rules. `service` is the lazily composed skills service.
 */
export function skillResourceProvider(service: () => Promise<SkillsService>): ResourceProvider {
  const caller = { actor: "resources" };
  return {
    scheme: "skill",
    list: async (): Promise<ResourceEntry[]> => {
      const scan = await (await service()).catalog.scan();
      const seen = new Set<string>();
      const out: ResourceEntry[] = [];
      for (const s of scan.skills) {
        if (s.skill.problems.length > 0 || !s.skill.manifest || seen.has(s.skill.name)) continue;
        seen.add(s.skill.name);
        out.push({ uri: `skill://${s.skill.name}/SKILL.md`, name: s.skill.name, title: `Skill ${s.skill.name}`, mimeType: "text/markdown", description: s.skill.manifest.description.slice(0, 300) });
      }
      return out;
    },
    templates: () => [TEMPLATE],
    read: async (uri: string): Promise<ResourceContents> => {
      const m = URI.exec(uri);
      if (!m) throw new HostgateError("invalid_uri", `${JSON.stringify(uri.slice(0, 200))} is not a skill resource.`, { hint: "Use skill://<name>/<path>, e.g. skill://disk-full/SKILL.md." });
      const env = await (await service()).call("skills_read", { ref: m[1], path: m[2] }, caller);
      if (!env.ok) throw new HostgateError(env.error.code === "invalid_params" ? "invalid_uri" : (env.error.code as never), env.error.message, { ...(env.error.hint ? { hint: env.error.hint } : {}), ...(env.error.details ? { details: env.error.details } : {}) });
      const d = env.data as { content: string; truncated: boolean; path: string };
      return { uri, mimeType: d.path.endsWith(".md") ? "text/markdown" : "text/plain", text: d.truncated ? `${d.content}\n[truncated at 256 KiB: use skills_read with offset]` : d.content };
    },
  };
}
