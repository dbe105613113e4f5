import { createHash, randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { chmod, lstat, mkdir, open, readdir, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { HostgateError } from "../core/errors.ts";
import { treeDigest, type Sha256, type SkillDigest } from "../core/skills/digest.ts";
import { SKILL_LIMITS } from "../core/skills/limits.ts";
import { loadSkill } from "../core/skills/skill.ts";
import { checkTreePath, TreeError, type TreeFile } from "../core/skills/tree.ts";
import type { LocalScan, LocalSkill, LocalSkillSource, RootStatus, SkillStore } from "../ports/skill-store.ts";

/** node:crypto's SHA-256 as core's incremental hash. */
export const sha256 = (): Sha256 => {
  const h = createHash("sha256");
  return { update: (b) => { h.update(b); }, digestHex: () => h.digest("hex") };
};

/**
 * Reads a skill directory as a tree: every regular file, by relative path. Refused with TreeError: symbolic
 * links (anywhere, including the top), devices, FIFOs and sockets, and anything past the tree caps (files,
 * bytes, depth). Files are opened with O_NOFOLLOW and checked again after opening, so a file swapped for a
 * symlink between the listing and the read is refused too.
 */
export async function readTree(dir: string): Promise<TreeFile[]> {
  const top = await lstat(dir);
  if (top.isSymbolicLink()) throw new TreeError(dir, "the skill directory is a symbolic link");
  if (!top.isDirectory()) throw new TreeError(dir, "not a directory");
  const out: TreeFile[] = [];
  let total = 0;
  const walk = async (rel: string, depth: number): Promise<void> => {
    if (depth > SKILL_LIMITS.treeDepth) throw new TreeError(rel, `deeper than ${SKILL_LIMITS.treeDepth} levels`);
    const entries = await readdir(join(dir, rel), { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const path = rel === "" ? e.name : `${rel}/${e.name}`;
      checkTreePath(path);
      if (e.isSymbolicLink()) throw new TreeError(path, "symbolic link (skills hold regular files only)");
      if (e.isDirectory()) { await walk(path, depth + 1); continue; }
      if (!e.isFile()) throw new TreeError(path, "not a regular file (device, FIFO or socket)");
      if (out.length >= SKILL_LIMITS.treeFiles) throw new TreeError(path, `more than ${SKILL_LIMITS.treeFiles} files`);
      const bytes = await readRegular(join(dir, path), path);
      total += bytes.length;
      if (total > SKILL_LIMITS.treeBytes) throw new TreeError(path, `tree larger than ${SKILL_LIMITS.treeBytes} bytes`);
      out.push({ path, bytes });
    }
  };
  await walk("", 1);
  return out;
}

async function readRegular(abs: string, rel: string): Promise<Uint8Array> {
  let fh;
  try {
    fh = await open(abs, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ELOOP") throw new TreeError(rel, "symbolic link (skills hold regular files only)");
    throw err;
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw new TreeError(rel, "not a regular file");
    if (st.size > SKILL_LIMITS.fileBytes) throw new TreeError(rel, `file larger than ${SKILL_LIMITS.fileBytes} bytes`);
    const buf = await fh.readFile();
    if (buf.length > SKILL_LIMITS.fileBytes) throw new TreeError(rel, `file larger than ${SKILL_LIMITS.fileBytes} bytes`);
    return new Uint8Array(buf.buffer, buf.byteOffset, buf.length);
  } finally {
    await fh.close();
  }
}

/** One skill folder of a root, or null when it has no SKILL.md (not a skill). */
async function loadOne(root: string, name: string): Promise<LocalSkill | null> {
  const dir = join(root, name);
  try {
    await lstat(join(dir, "SKILL.md"));
  } catch {
    return null;
  }
  try {
    return { root, dir, skill: loadSkill(name, await readTree(dir), sha256) };
  } catch (err) {
    const message = err instanceof TreeError ? err.message : (err as Error).message;
    return { root, dir, skill: { name, manifest: null, body: "", side: { entrypoints: [] }, files: [], digest: null, problems: [{ code: "tree_refused", file: err instanceof TreeError ? err.path : "", message }] } };
  }
}

/**
 * Local skills from configured roots. Each root's subdirectories holding a SKILL.md are skills; anything else
 * in a root (files, dot-directories) is ignored. A missing root is reported, not fatal.
 */
export function localSkillSource(roots: readonly string[]): LocalSkillSource {
  return {
    readFiles: readTree,
    scan: async (): Promise<LocalScan> => {
      const skills: LocalSkill[] = [];
      const statuses: RootStatus[] = [];
      for (const root of roots) {
        let names: string[];
        try {
          names = (await readdir(root, { withFileTypes: true })).filter((e) => e.isDirectory() && !e.name.startsWith(".")).map((e) => e.name).sort();
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code;
          statuses.push({ path: root, status: code === "ENOENT" ? "missing" : "unreadable", message: (err as Error).message });
          continue;
        }
        statuses.push({ path: root, status: "ok" });
        // Several folders at a time (the reads are I/O bound); results keep the directory order.
        const found: (LocalSkill | null)[] = new Array<LocalSkill | null>(names.length).fill(null);
        let next = 0;
        const worker = async (): Promise<void> => {
          for (let i = next++; i < names.length; i = next++) found[i] = await loadOne(root, names[i]!);
        };
        await Promise.all(Array.from({ length: Math.min(16, names.length) }, worker));
        for (const s of found) if (s) skills.push(s);
      }
      return { skills, roots: statuses };
    },
  };
}

/** Writes a tree under `dir` (which must not exist): directories 0755, files 0644 or 0755 under scripts/. */
async function writeTree(dir: string, files: readonly TreeFile[], readOnly: boolean): Promise<void> {
  await mkdir(dir, { recursive: false, mode: 0o700 });
  const dirs = new Set<string>();
  for (const f of files) {
    const parts = checkTreePath(f.path).split("/");
    for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join("/"));
  }
  for (const d of [...dirs].sort()) await mkdir(join(dir, d), { mode: 0o700 });
  for (const f of files) {
    const exec = f.path.startsWith("scripts/");
    // "wx": never follow or overwrite anything already there (the directory is ours and new).
    await writeFile(join(dir, f.path), f.bytes, { flag: "wx", mode: 0o600 });
    await chmod(join(dir, f.path), readOnly ? (exec ? 0o555 : 0o444) : (exec ? 0o755 : 0o644));
  }
  for (const d of [...dirs].sort().reverse()) await chmod(join(dir, d), readOnly ? 0o555 : 0o755);
  await chmod(dir, readOnly ? 0o555 : 0o755);
}

/** Removes a tree this module wrote, making read-only directories writable first. */
async function removeTree(dir: string): Promise<void> {
  const walk = async (d: string): Promise<void> => {
    await chmod(d, 0o700).catch(() => undefined);
    for (const e of await readdir(d, { withFileTypes: true }).catch(() => [])) {
      if (e.isDirectory() && !e.isSymbolicLink()) await walk(join(d, e.name));
    }
  };
  await walk(dir).catch(() => undefined);
  await rm(dir, { recursive: true, force: true });
}

const tmpName = (base: string): string => `.hostgate-tmp-${base}-${randomBytes(6).toString("hex")}`;

/**
 * The content-addressed store under `dir`: `sha256/<hex>/` per digest. A tree is verified, written into a
 * temporary directory beside, made read-only and renamed into place, so a digest directory is either
 * complete or absent.
 */
export function fsSkillStore(dir: string): SkillStore {
  const pathOf = (digest: SkillDigest): string => join(dir, "sha256", digest.slice("sha256:".length));
  const exists = async (p: string): Promise<boolean> => lstat(p).then(() => true, () => false);
  return {
    dir,
    pathOf,
    has: (digest) => exists(pathOf(digest)),
    get: async (digest) => {
      const p = pathOf(digest);
      if (!(await exists(p))) return null;
      const files = await readTree(p);
      const actual = treeDigest(files, sha256);
      if (actual !== digest) throw new HostgateError("digest_mismatch", `The stored tree ${p} hashes to ${actual}, not ${digest}: it was altered.`, { hint: "Remove that directory; the next install fetches and verifies it again." });
      return files;
    },
    put: async (digest, files) => {
      const actual = treeDigest(files, sha256);
      if (actual !== digest) throw new HostgateError("digest_mismatch", `The tree hashes to ${actual}, not the pinned ${digest}.`, { hint: "The release is not what its record pins; do not install it." });
      const final = pathOf(digest);
      if (await exists(final)) return final;
      await mkdir(join(dir, "sha256"), { recursive: true, mode: 0o755 });
      const tmp = join(dir, "sha256", tmpName(digest.slice(7, 19)));
      try {
        await writeTree(tmp, files, true);
        await rename(tmp, final);
      } catch (err) {
        await removeTree(tmp);
        if ((err as NodeJS.ErrnoException).code === "ENOTEMPTY" || (err as NodeJS.ErrnoException).code === "EEXIST") return final;
        throw err;
      }
      return final;
    },
  };
}
