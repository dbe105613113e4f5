import { HostgateError } from "../../core/errors.ts";
import { LIMITS } from "../../core/limits.ts";
import { decodeCursor, encodeCursor, paginate } from "../../core/pagination.ts";
import { directoryChildren, DIRECTORY_MIME, extLimitProblem, fileDigests, parseSkillUri, skillEntry, skillFileMime, skillFileUri, type FileDigest, type SkillEntry } from "../../core/skills/entry.ts";
import { isValid, loadSkill, type Skill } from "../../core/skills/skill.ts";
import type { TreeFile } from "../../core/skills/tree.ts";
import type { ResourceContents } from "../../ipc/protocol.ts";
import type { SkillsExtDirectoryValue, SkillsExtGetValue, SkillsExtListValue } from "../../ipc/skills-ext.ts";
import type { ExecGrant, LocalSkill } from "../../ports/skill-store.ts";
import type { SkillCatalog } from "./catalog.ts";
import type { SkillsDeps } from "./deps.ts";
import { grantGap } from "./exec.ts";

/** Entries per `skills/list` page at most, and the bytes a page stops before (answers stay under 1 MiB). */
const LIST_PAGE = 50;
const LIST_PAGE_BYTES = 768 * 1024;
/** Children per `resources/directory/read` page. */
const DIRECTORY_PAGE = 100;
/** A file read as a resource: text up to the answer cap less room for the envelope; bytes before base64 (4/3). */
const TEXT_MAX = LIMITS.answerBytes - 4096;
const BLOB_MAX = Math.floor(TEXT_MAX / 4) * 3;

/** What an entry is built from: the skill (valid), where it lives, and the digest set of the bytes read. */
interface Served {
  local: LocalSkill;
  skill: Skill & { frontmatter: Record<string, unknown>; digest: string };
  digests: FileDigest[];
}

/** The cache key of a folder's tree. */
const keyOf = (dir: string, digest: string | null): string => `${dir}\u0000${digest ?? "-"}`;

/** UTF-8 text exactly as the bytes say: a byte-order mark is kept (a digest covers it), invalid bytes are null. */
const exactUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    return exactUtf8.decode(bytes);
  } catch {
    return null;
  }
}

/** Base64 of bytes without node:buffer (app/ reaches the OS only through ports). */
function base64(bytes: Uint8Array): string {
  let bin = "";
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

/**
 * The MCP Skills extension (SEP-2640) on the daemon side: `skills/list`, `skills/get`,
 * `resources/directory/read` and `resources/read` of `skill://<name>/<path>`, over the valid local skills (the
 * first root that has a name wins, as for skills_search; registry releases are not served here). Entries are
 * built from one read of a skill's files: the front matter comes from the same SKILL.md bytes whose digest is
 * listed, so the two cannot disagree, and a SKILL.md whose `name` is not its folder's (the URI's last segment)
 * is refused by name. Every entry's `_meta` carries hostgate's view: the tree digest and pinned ref that
 * skills_execute and grants use, the version (metadata.version), and which entrypoints are granted for exactly
 * this digest set. The MCP front decides nothing: it forwards these answers.
 */
export class SkillEntries {
  /** Entries by folder and tree digest, so a listing reads a skill's files again only when the scan saw a change. */
  private cache = new Map<string, Served>();

  constructor(private readonly cat: SkillCatalog, private readonly d: SkillsDeps) {}

  /** Reads a skill's folder now and validates it; null when it cannot be read or is not valid. */
  private async load(local: LocalSkill): Promise<{ served: Served | null; skill: Skill; files: TreeFile[] }> {
    let files: TreeFile[];
    try {
      files = await this.d.local.readFiles(local.dir);
    } catch (err) {
      const skill: Skill = { ...local.skill, manifest: null, digest: null, problems: [{ code: "tree_refused", file: "", message: (err as Error).message }] };
      return { served: null, skill, files: [] };
    }
    const skill = loadSkill(local.skill.name, files, this.d.sha256);
    if (!isValid(skill) || !skill.frontmatter) return { served: null, skill, files };
    return { served: { local, skill: skill as Served["skill"], digests: fileDigests(files, this.d.sha256) }, skill, files };
  }

  /** `_meta` of an entry: untrusted content, hostgate's tree digest and pinned ref, version, granted entrypoints. */
  private meta(s: Served, grants: readonly ExecGrant[]): Record<string, unknown> {
    const name = s.skill.name;
    const granted = s.skill.side.entrypoints.filter((e) => e.mcp_exec && grantGap(grants, name, s.skill.digest, e.name, s.digests) === null).map((e) => e.name);
    return {
      "dev.hostgate/untrusted": true,
      "dev.hostgate/digest": s.skill.digest,
      "dev.hostgate/pinned_ref": `${name}@${s.skill.digest}`,
      "dev.hostgate/version": s.skill.manifest?.metadata?.version ?? null,
      "dev.hostgate/provenance": { source: "local", location: s.local.dir },
      "dev.hostgate/granted_entrypoints": granted,
    };
  }

  private entry(s: Served, grants: readonly ExecGrant[]): SkillEntry {
    return skillEntry(s.skill.name, s.skill.frontmatter, s.digests, this.meta(s, grants));
  }

  private grants(): Promise<ExecGrant[]> {
    return this.d.exec ? this.d.exec.grants.list() : Promise.resolve([]);
  }

  /**
   * One page of entries, sorted by name: at most 50 and under 768 KiB (an entry is never split). Skills over the
   * extension's limits (512 files, 16 MiB) are left out (they stay readable with skills_read). The scan is the
   * catalog's (reused for `skills.rescan_ms`); a folder whose tree changed since is read again.
   */
  async list(cursor: string | undefined): Promise<SkillsExtListValue> {
    const scan = await this.cat.scan();
    const byName = new Map<string, LocalSkill>();
    for (const s of scan.skills) if (isValid(s.skill) && !byName.has(s.skill.name)) byName.set(s.skill.name, s);
    const names = [...byName.keys()].sort();
    const start = cursor === undefined ? 0 : decodeCursor(cursor, "skills/list");
    const fresh = new Map<string, Served>();
    const grants = await this.grants();
    const skills: SkillEntry[] = [];
    let bytes = 0;
    let next = start;
    for (; next < names.length && skills.length < LIST_PAGE; next++) {
      const local = byName.get(names[next]!)!;
      const served = this.cache.get(keyOf(local.dir, local.skill.digest)) ?? (await this.load(local)).served;
      if (!served || extLimitProblem(served.digests) !== null) continue;
      // Kept under the digest of the bytes read, so a folder that changed since the scan is read again next time.
      fresh.set(keyOf(local.dir, served.skill.digest), served);
      const entry = this.entry(served, grants);
      const size = JSON.stringify(entry).length;
      if (skills.length > 0 && bytes + size > LIST_PAGE_BYTES) break;
      skills.push(entry);
      bytes += size;
    }
    // Keep only what this page saw or the scan still names as it is, so edited skills do not pile up.
    const current = new Set([...byName.values()].map((l) => keyOf(l.dir, l.skill.digest)));
    for (const [k, v] of this.cache) if (!fresh.has(k) && current.has(k)) fresh.set(k, v);
    this.cache = fresh;
    return { skills, next_cursor: next < names.length ? encodeCursor(next, "skills/list") : null };
  }

  /**
   * The skill named by `uri`'s name, read from disk now (the first valid folder of that name in root order).
   * Throws HostgateError: `not_found` (no such skill), `invalid_skill` (the folder's SKILL.md names another
   * skill, or it has other problems, or, with `limits`, it is over the extension's limits).
   */
  private async serve(name: string, uri: string, limits: boolean): Promise<Served & { files: TreeFile[] }> {
    let candidates = (await this.cat.scan()).skills.filter((s) => s.skill.name === name);
    if (candidates.length === 0) candidates = (await this.cat.scan(true)).skills.filter((s) => s.skill.name === name);
    let firstInvalid: Skill | null = null;
    for (const local of candidates) {
      const { served, skill, files } = await this.load(local);
      if (!served) { firstInvalid ??= skill; continue; }
      const over = limits ? extLimitProblem(served.digests) : null;
      if (over !== null) throw new HostgateError("invalid_skill", `${uri} is not served over the Skills extension: ${over}.`, { hint: `Read it with skills_inspect and skills_read { ref: "${name}" }, or split the skill.` });
      return { ...served, files };
    }
    if (firstInvalid) {
      const mismatch = firstInvalid.problems.find((p) => p.code === "name_mismatch");
      if (mismatch) {
        throw new HostgateError("invalid_skill", `${uri} is not served: the front matter of its SKILL.md does not match the URI: ${mismatch.message} The last segment of a skill's URI is its name (SEP-2640), so the two must be equal.`, { hint: `Rename the folder or set name: ${name} in SKILL.md; skills_diagnose lists every problem.`, details: { problems: firstInvalid.problems } });
      }
      throw new HostgateError("invalid_skill", `${uri} is not served: the skill ${name} is not valid: ${firstInvalid.problems.map((p) => p.message).slice(0, 3).join(" ")}`, { hint: "skills_diagnose lists every problem; fix them in the skill's files.", details: { problems: firstInvalid.problems } });
    }
    throw new HostgateError("not_found", `No skill is served at ${uri}.`, { hint: "skills/list lists the skills this server serves (skill://<name>/SKILL.md); skills_search finds local skills." });
  }

  /** `skills/get`: the entry of the skill whose SKILL.md is `uri`, read now. `invalid_uri` for any other URI. */
  async get(uri: string): Promise<SkillsExtGetValue> {
    const p = parseSkillUri(uri);
    if ("error" in p) throw new HostgateError("invalid_uri", p.error, { hint: "skills/get takes the URI of a skill's SKILL.md: skill://<name>/SKILL.md." });
    if (p.path !== "SKILL.md") throw new HostgateError("invalid_uri", `${uri} is not the URI of a skill's SKILL.md.`, { hint: `skills/get takes skill://${p.name}/SKILL.md; other files are read with resources/read.` });
    const served = await this.serve(p.name, uri, true);
    return { skill: this.entry(served, await this.grants()) };
  }

  /** `resources/directory/read`: the direct children of a directory of a skill (`skill://<name>` is its root), paged by 100. */
  async directory(uri: string, cursor: string | undefined): Promise<SkillsExtDirectoryValue> {
    const p = parseSkillUri(uri);
    if ("error" in p) throw new HostgateError("invalid_uri", p.error, { hint: "A skill's directories are skill://<name> and skill://<name>/<folder>, without a trailing slash." });
    const served = await this.serve(p.name, uri, false);
    const children = directoryChildren(served.files.map((f) => f.path), p.path);
    if (children === null) {
      const isFile = served.files.some((f) => f.path === p.path);
      throw new HostgateError("invalid_uri", `${uri} is not a directory resource${isFile ? ": it is a file (read it with resources/read)" : `: ${p.name} has no folder ${p.path}`}.`, { hint: `skill://${p.name} is the skill's root directory.` });
    }
    const bytesOf = new Map(served.files.map((f) => [f.path, f.bytes]));
    const page = paginate(children, DIRECTORY_PAGE, cursor, `directory:${uri}`);
    return {
      resources: page.items.map((c) => {
        const b = bytesOf.get(c.path);
        return c.kind === "directory" || b === undefined
          ? { uri: skillFileUri(p.name, c.path), name: c.name, mimeType: DIRECTORY_MIME }
          : { uri: skillFileUri(p.name, c.path), name: c.name, mimeType: skillFileMime(c.path, decodeUtf8(b) !== null), size: b.length };
      }),
      next_cursor: page.next_cursor,
    };
  }

  /**
   * `resources/read` of `skill://<name>/<path>`: the file's exact bytes, as `text` when they are UTF-8, else a
   * base64 `blob`, so a host can check them against the entry's digest and size. Larger than the 1 MiB answer
   * cap (768 KiB of bytes for a blob): `answer_too_large`, saying to page it with skills_read.
   */
  async read(uri: string): Promise<ResourceContents> {
    const p = parseSkillUri(uri);
    if ("error" in p) throw new HostgateError("invalid_uri", p.error, { hint: "Use skill://<name>/<path>, e.g. skill://disk-full/SKILL.md." });
    if (p.path === "") throw new HostgateError("invalid_uri", `${uri} is a skill's root directory, not a file.`, { hint: `Read skill://${p.name}/SKILL.md, or list it with resources/directory/read.` });
    const served = await this.serve(p.name, uri, false);
    const file = served.files.find((f) => f.path === p.path);
    if (!file) throw new HostgateError("not_found", `${p.name} has no file ${p.path}.`, { hint: `Its files: ${served.files.map((f) => f.path).slice(0, 30).join(", ")}.` });
    const text = decodeUtf8(file.bytes);
    const tooLarge = (max: number): HostgateError => new HostgateError("answer_too_large", `${uri} is ${file.bytes.length} bytes; a resource read answers at most ${max}.`, { hint: `Page it with skills_read { ref: "${p.name}", path: "${p.path}", offset }.` });
    if (text !== null) {
      if (file.bytes.length > TEXT_MAX) throw tooLarge(TEXT_MAX);
      return { uri, mimeType: skillFileMime(p.path, true), text };
    }
    if (file.bytes.length > BLOB_MAX) throw tooLarge(BLOB_MAX);
    return { uri, mimeType: skillFileMime(p.path, false), blob: base64(file.bytes) };
  }
}
