import { HostgateError } from "../../core/errors.ts";
import type { SkillDigest } from "../../core/skills/digest.ts";
import { parseRef } from "../../core/skills/ref.ts";
import type { SkillIndex } from "../../core/skills/search.ts";
import { isValid, loadSkill } from "../../core/skills/skill.ts";
import type { TreeFile } from "../../core/skills/tree.ts";
import { treeDigest } from "../../core/skills/digest.ts";
import type { LocalScan, LocalSkill, ReleaseRecord } from "../../ports/skill-store.ts";
import type { SkillsProvenance } from "../../ipc/skills.ts";
import type { SkillsDeps } from "./deps.ts";

/** A reference resolved to one exact tree. */
export interface Resolved {
  name: string;
  source: "local" | "registry" | "store";
  digest: SkillDigest;
  version: string | null;
  location: string;
  local?: LocalSkill;
  record?: ReleaseRecord;
}

/** Provenance of a resolved skill (and optionally one file of it). */
export function provenance(r: Resolved, path?: string): SkillsProvenance {
  return { source: r.source, location: r.location, digest: r.digest, ...(path ? { path } : {}) };
}

/**
 * The local skills and their search index. One scan of the roots is reused for `rescanMs` (search and route
 * must answer in milliseconds over thousands of skills); the index is rebuilt only when a scan changed
 * something, and its module (MiniSearch) is imported on first use, so a daemon whose skills toolset is off
 * never loads it.
 */
export class SkillCatalog {
  private scanned: { at: number; scan: LocalScan; key: string } | null = null;
  private pending: Promise<LocalScan> | null = null;
  private indexed: { key: string; index: SkillIndex } | null = null;
  /** Milliseconds the last index build took (reported by skills_diagnose and the benchmark). */
  lastIndexBuildMs = 0;

  constructor(private readonly d: SkillsDeps) {}

  /**
   * The local roots. Search and route take the last scan and, once it is older than `rescanMs`, start a
   * new one in the background (stale while revalidating: a scan of thousands of skills never lands on the
   * request path after the first). `fresh` (plans, applies, exec, diagnose) waits for a scan made now.
   */
  async scan(fresh = false): Promise<LocalScan> {
    const now = this.d.clock.now();
    if (!fresh && this.scanned) {
      if (now - this.scanned.at >= this.d.rescanMs) void this.rescan().catch(() => undefined);
      return this.scanned.scan;
    }
    // A fresh scan must start after now: one already running may predate what the caller just changed.
    if (fresh && this.pending) await this.pending.catch(() => undefined);
    return this.rescan();
  }

  private rescan(): Promise<LocalScan> {
    this.pending ??= this.d.local.scan().then((scan) => {
      const key = scan.skills.map((s) => `${s.dir}:${s.skill.digest ?? "x"}`).join("|");
      this.scanned = { at: this.d.clock.now(), scan, key };
      return scan;
    }).finally(() => { this.pending = null; });
    return this.pending;
  }

  async index(): Promise<SkillIndex> {
    const scan = await this.scan();
    const key = this.scanned!.key;
    if (this.indexed?.key === key) return this.indexed.index;
    const { SkillIndex } = await import("../../core/skills/search.ts");
    const t0 = performance.now();
    const index = new SkillIndex(scan.skills.filter((s) => isValid(s.skill)).map((s) => ({ name: s.skill.name, description: s.skill.manifest!.description, body: s.skill.body })));
    this.lastIndexBuildMs = Math.round((performance.now() - t0) * 10) / 10;
    this.indexed = { key, index };
    return index;
  }

  /**
   * The local skills with that directory name. `fresh`: read again now, but only those folders (a fresh
   * scan of thousands of skills would land on every plan); a name the last scan did not see costs one
   * fresh scan, so a skill added since is found.
   */
  private async named(name: string, fresh: boolean): Promise<LocalSkill[]> {
    const cached = (await this.scan()).skills.filter((s) => s.skill.name === name);
    if (!fresh) return cached;
    if (cached.length === 0) return (await this.scan(true)).skills.filter((s) => s.skill.name === name);
    return Promise.all(cached.map(async (s): Promise<LocalSkill> => {
      try {
        return { ...s, skill: loadSkill(name, await this.d.local.readFiles(s.dir), this.d.sha256) };
      } catch (err) {
        return { ...s, skill: { ...s.skill, manifest: null, digest: null, problems: [{ code: "tree_refused", file: "", message: (err as Error).message }] } };
      }
    }));
  }

  /** The first valid local skill of that name (roots in configured order), or null. */
  async localByName(name: string): Promise<LocalSkill | null> {
    return (await this.scan()).skills.find((s) => s.skill.name === name && isValid(s.skill)) ?? null;
  }

  /**
   * Resolves a reference: `name` → a valid local skill, else the registry's latest; `name@version` → a local
   * skill whose metadata.version matches, else the registry (`source_disabled` without one);
   * `name@sha256:…` → a local skill with that digest, the store, or a registry version pinned to it.
   * Throws HostgateError `invalid_params`, `not_found`, `invalid_skill`, `source_disabled`, registry codes.
   */
  async resolve(text: string, fresh = false): Promise<Resolved> {
    const ref = parseRef(text);
    if ("error" in ref) throw new HostgateError("invalid_params", ref.error);
    const named = await this.named(ref.name, fresh);
    const localHit = (s: LocalSkill): Resolved => ({ name: ref.name, source: "local", digest: s.skill.digest!, version: s.skill.manifest?.metadata?.version ?? null, location: s.dir, local: s });
    if (ref.kind === "name" || ref.kind === "version") {
      const valid = named.find((s) => isValid(s.skill) && (ref.kind === "name" || s.skill.manifest.metadata?.version === ref.version));
      if (valid) return localHit(valid);
    } else {
      const valid = named.find((s) => isValid(s.skill) && s.skill.digest === ref.digest);
      if (valid) return localHit(valid);
      if (await this.d.store.has(ref.digest)) return { name: ref.name, source: "store", digest: ref.digest, version: null, location: this.d.store.pathOf(ref.digest) };
    }
    const reg = this.d.registry;
    if (!reg) {
      const invalid = named.find((s) => !isValid(s.skill));
      if (invalid) throw invalidSkill(invalid);
      if (ref.kind === "version") throw new HostgateError("source_disabled", `No registry is configured, and no local skill ${ref.name} has metadata.version ${ref.version}.`, { hint: "Set skills.registry in the config to resolve registry releases; skills_search lists local skills." });
      throw new HostgateError("not_found", `No local skill matches ${text} and no registry is configured (source_disabled).`, { hint: "skills_search lists local skills; skills_diagnose shows skills that failed validation." });
    }
    const index = await reg.index();
    const entry = Object.hasOwn(index.skills, ref.name) ? index.skills[ref.name] : undefined;
    if (!entry) throw new HostgateError("not_found", `Neither the local roots nor the registry have a skill named ${ref.name}.`, { hint: "Check the name with skills_search." });
    let version: string | undefined;
    if (ref.kind === "name") version = entry.latest;
    else if (ref.kind === "version") version = Object.hasOwn(entry.versions, ref.version) ? ref.version : undefined;
    else version = Object.entries(entry.versions).find(([, d]) => d === ref.digest)?.[0];
    if (version === undefined) throw new HostgateError("not_found", `The registry has no release ${text}.`, { hint: `Known versions: ${Object.keys(entry.versions).slice(0, 20).join(", ")}.` });
    const record = await reg.release(ref.name, version);
    if (entry.versions[version] !== record.digest) throw new HostgateError("registry_error", `The registry's index pins ${ref.name}@${version} to ${entry.versions[version]}, its release record to ${record.digest}.`, { hint: "The registry is inconsistent; tell its maintainer." });
    return { name: ref.name, source: "registry", digest: record.digest, version, location: reg.location, record };
  }

  /**
   * The files of a resolved skill, hashed again now: a local skill edited since it was resolved, or a
   * stored tree that was altered, is refused rather than used.
   */
  async files(r: Resolved): Promise<TreeFile[]> {
    let files: TreeFile[] | null;
    if (r.source === "registry") files = await this.d.registry!.fetchTree(r.record!);
    else if (r.source === "store") files = await this.d.store.get(r.digest);
    else files = await this.d.local.readFiles(r.local!.dir);
    if (!files) throw new HostgateError("not_found", `${r.name}@${r.digest} is no longer in the store.`);
    const now = treeDigest(files, this.d.sha256);
    if (now !== r.digest) throw new HostgateError("precondition_failed", `${r.name} changed on disk since it was resolved (${r.digest} → ${now}).`, { hint: "Resolve or plan again." });
    return files;
  }
}

/** `invalid_skill` with every problem in details. */
export function invalidSkill(s: LocalSkill): HostgateError {
  return new HostgateError("invalid_skill", `The local skill ${s.skill.name} (${s.dir}) is not valid: ${s.skill.problems.map((p) => p.message).slice(0, 3).join(" ")}`, {
    hint: "skills_diagnose lists every problem; fix them in the skill's files.",
    details: { problems: s.skill.problems },
  });
}
