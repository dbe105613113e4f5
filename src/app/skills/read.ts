import { HostgateError } from "../../core/errors.ts";
import { SKILL_LIMITS } from "../../core/skills/limits.ts";
import { decodeUtf8, isValid, loadSkill } from "../../core/skills/skill.ts";
import { checkTreePath } from "../../core/skills/tree.ts";
import type { SkillsProvenance, SkillsReadArgs, SkillsRefArgs, SkillsRouteArgs, SkillsSearchArgs } from "../../ipc/skills.ts";
import type { LocalScan, LocalSkill } from "../../ports/skill-store.ts";
import { provenance, type SkillCatalog } from "./catalog.ts";
import type { SkillsDeps } from "./deps.ts";

/** A successful answer before it is wrapped in the envelope. */
export interface Answer {
  data: Record<string, unknown>;
  untrusted: boolean;
  provenance: SkillsProvenance[];
  confirm?: { token: string; expires_at: string };
}

const localProv = (dir: string, digest: string | null, path?: string): SkillsProvenance => ({ source: "local", location: dir, digest, ...(path ? { path } : {}) });

const byNameCache = new WeakMap<LocalScan, Map<string, LocalSkill>>();
/** The valid skills of one scan by name (first root wins), built once per scan. */
function validByName(scan: LocalScan): Map<string, LocalSkill> {
  let m = byNameCache.get(scan);
  if (!m) {
    m = new Map();
    for (const s of scan.skills) if (isValid(s.skill) && !m.has(s.skill.name)) m.set(s.skill.name, s);
    byNameCache.set(scan, m);
  }
  return m;
}

/** skills_search: ranked full-text search over local skills (name, description, body). */
export async function search(cat: SkillCatalog, args: SkillsSearchArgs): Promise<Answer> {
  const [index, scan] = await Promise.all([cat.index(), cat.scan()]);
  const byName = validByName(scan);
  const hits = index.search(args.query, args.limit).map((h) => {
    const s = byName.get(h.name)!;
    return { name: h.name, description: s.skill.manifest!.description, score: h.score, matched: h.matched, digest: s.skill.digest, ref: `${h.name}@${s.skill.digest!}` };
  });
  return { data: { query: args.query, sources: ["local"], total_indexed: index.size, results: hits }, untrusted: true, provenance: hits.map((h) => localProv(byName.get(h.name)!.dir, h.digest)) };
}

/** skills_route: the best local skill for an intent, with its score and why. */
export async function route(cat: SkillCatalog, args: SkillsRouteArgs): Promise<Answer> {
  const { routeIntent } = await import("../../core/skills/search.ts");
  const r = routeIntent(await cat.index(), args.intent);
  const hit = r.skill ? await cat.localByName(r.skill) : null;
  return {
    data: { intent: args.intent, skill: r.skill, ref: hit ? `${hit.skill.name}@${hit.skill.digest!}` : null, description: hit?.skill.manifest?.description ?? null, score: r.score, margin: r.margin, why: r.why, alternatives: r.alternatives, next: hit ? `Read it with skills_read { ref: "${hit.skill.name}" } (in a terminal: hostgate skills read ${hit.skill.name}).` : "No match: try skills_search with other words (in a terminal: hostgate skills search WORDS)." },
    untrusted: true,
    provenance: hit ? [localProv(hit.dir, hit.skill.digest)] : [],
  };
}

/** skills_resolve: a reference → source, version and the exact digest. */
export async function resolve(cat: SkillCatalog, args: SkillsRefArgs): Promise<Answer> {
  const r = await cat.resolve(args.ref);
  return { data: { ref: args.ref, name: r.name, source: r.source, version: r.version, digest: r.digest, pinned_ref: `${r.name}@${r.digest}`, location: r.location }, untrusted: false, provenance: [provenance(r)] };
}

/** skills_inspect: manifest, files, digest, entrypoints (with grant state when exec is configured), problems. */
export async function inspect(cat: SkillCatalog, d: SkillsDeps, args: SkillsRefArgs): Promise<Answer> {
  const r = await cat.resolve(args.ref);
  const skill = r.local ? r.local.skill : loadSkill(r.name, await cat.files(r), d.sha256);
  const grants = d.exec ? await d.exec.grants.list() : [];
  return {
    data: {
      name: r.name, source: r.source, version: r.version, digest: r.digest, pinned_ref: `${r.name}@${r.digest}`, valid: isValid(skill),
      manifest: skill.manifest, problems: skill.problems,
      files: skill.files,
      entrypoints: skill.side.entrypoints.map((e) => ({
        name: e.name, description: e.description, interpreter: e.interpreter, run: e.run, mcp_exec: e.mcp_exec, secrets: e.secrets,
        timeout_seconds: e.timeout_seconds ?? SKILL_LIMITS.execTimeoutDefaultSeconds,
        granted: grants.some((g) => g.digest === r.digest && g.entrypoint === e.name),
      })),
      body_bytes: new TextEncoder().encode(skill.body).length,
    },
    untrusted: true,
    provenance: [provenance(r, "SKILL.md")],
  };
}

/** skills_read: one file of a skill, UTF-8 text, at most 256 KiB from `offset` (cut at a character boundary). */
export async function read(cat: SkillCatalog, args: SkillsReadArgs): Promise<Answer> {
  try {
    checkTreePath(args.path);
  } catch (err) {
    throw new HostgateError("invalid_params", `path ${(err as Error).message}`, { hint: "Use a relative path from skills_inspect's file list, e.g. scripts/diagnose.sh." });
  }
  const r = await cat.resolve(args.ref);
  const files = await cat.files(r);
  const f = files.find((x) => x.path === args.path);
  if (!f) throw new HostgateError("not_found", `${r.name} has no file ${args.path}.`, { hint: `Files: ${files.map((x) => x.path).slice(0, 30).join(", ")}.` });
  if (decodeUtf8(f.bytes) === null) throw new HostgateError("invalid_params", `${args.path} is binary (${f.bytes.length} bytes), not text.`, { hint: "skills_read returns text files only." });
  if (args.offset > f.bytes.length) throw new HostgateError("invalid_params", `offset ${args.offset} is past the end (${f.bytes.length} bytes).`);
  let end = Math.min(f.bytes.length, args.offset + SKILL_LIMITS.readBytes);
  // Do not cut a UTF-8 sequence: back off over continuation bytes (10xxxxxx).
  while (end < f.bytes.length && end > args.offset && (f.bytes[end]! & 0xc0) === 0x80) end--;
  let start = args.offset;
  while (start < end && (f.bytes[start]! & 0xc0) === 0x80) start++;
  const content = new TextDecoder().decode(f.bytes.subarray(start, end));
  const truncated = end < f.bytes.length;
  return {
    data: { name: r.name, digest: r.digest, path: args.path, size: f.bytes.length, offset: start, content, truncated, next_offset: truncated ? end : null },
    untrusted: true,
    provenance: [provenance(r, args.path)],
  };
}

/** skills_diagnose: what is not offered and why (gates, invalid skills, roots, registry). */
export async function diagnose(cat: SkillCatalog, d: SkillsDeps): Promise<Answer> {
  const scan = await cat.scan(true);
  let registry: Record<string, unknown> = { configured: false, status: "source_disabled", message: "No registry configured (skills.registry): registry references answer source_disabled." };
  if (d.registry) {
    try {
      const index = await d.registry.index();
      registry = { configured: true, location: d.registry.location, status: "ok", skills: Object.keys(index.skills).length };
    } catch (err) {
      const e = err as HostgateError;
      registry = { configured: true, location: d.registry.location, status: e.code === "registry_unreachable" ? "unreachable" : "error", code: e.code ?? "internal_error", message: e.message };
    }
  }
  const valid = scan.skills.filter((s) => isValid(s.skill));
  const invalid = scan.skills.filter((s) => !isValid(s.skill));
  return {
    data: {
      gates: { install: d.gates.install, exec: d.gates.exec },
      roots: scan.roots,
      offered: valid.length,
      invalid: invalid.map((s) => ({ name: s.skill.name, dir: s.dir, problems: s.skill.problems })),
      duplicates: [...new Set(valid.map((s) => s.skill.name).filter((n, i, a) => a.indexOf(n) !== i))].map((n) => ({ name: n, used: valid.find((s) => s.skill.name === n)!.dir })),
      registry,
      store: d.store.dir,
      install_bases: d.bases,
      index_build_ms: cat.lastIndexBuildMs,
    },
    untrusted: true,
    provenance: invalid.map((s) => localProv(s.dir, s.skill.digest)),
  };
}
