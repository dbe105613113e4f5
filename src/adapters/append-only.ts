import { execFileSync } from "node:child_process";
import { closeSync, mkdirSync, openSync, statSync } from "node:fs";
import { dirname } from "node:path";

/**
 * The append-only file attribute (`chattr +a`, FS_APPEND_FL): once set, nobody — the daemon's user, root
 * included unless it first clears the flag with CAP_LINUX_IMMUTABLE — can truncate, overwrite, rename over or
 * delete the file; appends still work. The checkpoint copy of the system daemon is kept this way, so the
 * evidence of how far the audit chain had grown survives whoever rewrites the state directory. Uses e2fsprogs'
 * `chattr`/`lsattr`; ext2/3/4, XFS and btrfs support the flag, tmpfs and overlayfs do not.
 */

/** What is known about a file's protection: whether it is append-only, who owns it, and why not when not. */
export interface AppendOnlyState {
  path: string;
  exists: boolean;
  append_only: boolean;
  owner_uid: number | null;
  mode: number | null;
  /** Why the flag is not set or could not be read (missing tools, unsupported filesystem…). */
  note: string | null;
}

/** Reads the flag with `lsattr -d`; never throws. */
export function appendOnlyState(path: string): AppendOnlyState {
  let st;
  try {
    st = statSync(path);
  } catch {
    return { path, exists: false, append_only: false, owner_uid: null, mode: null, note: "the file does not exist yet" };
  }
  const base = { path, exists: true, owner_uid: st.uid, mode: st.mode & 0o7777 };
  try {
    const out = execFileSync("lsattr", ["-d", path], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 5000 });
    const flags = out.trim().split(/\s+/)[0] ?? "";
    return { ...base, append_only: flags.includes("a"), note: flags.includes("a") ? null : "the append-only attribute is not set" };
  } catch (err) {
    return { ...base, append_only: false, note: `cannot read file attributes (${firstLine(err)})` };
  }
}

/**
 * Creates `path` (and its directory) if missing, mode 0644, and sets the append-only flag when it is not set.
 * Only root (CAP_LINUX_IMMUTABLE) can set it; on a filesystem without the flag, or without permission, the file
 * stays as it is and the returned state says why (doctor reports it). Never throws.
 */
export function ensureAppendOnly(path: string): AppendOnlyState {
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o755 });
    closeSync(openSync(path, "a", 0o644));
  } catch (err) {
    return { path, exists: false, append_only: false, owner_uid: null, mode: null, note: `cannot create it (${firstLine(err)})` };
  }
  const now = appendOnlyState(path);
  if (now.append_only) return now;
  try {
    execFileSync("chattr", ["+a", path], { stdio: ["ignore", "pipe", "pipe"], timeout: 5000 });
  } catch (err) {
    return { ...now, note: `chattr +a failed (${firstLine(err)}): the filesystem may not support it, or the daemon is not root` };
  }
  return appendOnlyState(path);
}

function firstLine(err: unknown): string {
  const e = err as { stderr?: Buffer | string; message?: string };
  const text = (e.stderr !== undefined && String(e.stderr).trim() !== "" ? String(e.stderr) : e.message) ?? String(err);
  return text.trim().split("\n")[0]!;
}
