import { HostgateError } from "../../errors.ts";
import type { FileStat, HostProbe } from "../../../ports/host-probe.ts";

/**
 * A value derived from files on a host (a parsed package database, a package manager's answer over its index),
 * kept per host and reused while those files are unchanged. The key is a fingerprint of the files' (size, mtime,
 * inode) as {@link fileFingerprint} reads them: a rewritten file changes at least one of them (dpkg and apt
 * replace their files by rename, which always gives a new inode). Hosts are told apart by their HostProbe
 * object, so each inventory host's context has its own entries and a dropped context takes them with it.
 */
export class FileKeyedCache<T> {
  private readonly byHost = new WeakMap<HostProbe, { key: string; value: T }>();

  /** The value stored for `host` under exactly `key`, else undefined. */
  get(host: HostProbe, key: string): T | undefined {
    const hit = this.byHost.get(host);
    return hit !== undefined && hit.key === key ? hit.value : undefined;
  }

  /** Stores `value` for `host` under `key`, replacing whatever the host had. */
  set(host: HostProbe, key: string, value: T): void {
    this.byHost.set(host, { key, value });
  }
}

/** One file's part of a fingerprint: `size:mtime_ms:ino` (ino empty where the probe cannot tell, SSH hosts), `-` when absent. */
export function statKey(st: FileStat | null): string {
  return st === null ? "-" : `${st.size}:${st.mtime_ms}:${st.ino ?? ""}`;
}

/** lstat of `path`, or null when it does not exist (any other error propagates). */
export async function statOrNull(host: HostProbe, path: string): Promise<FileStat | null> {
  try {
    return await host.stat(path);
  } catch (err) {
    if (err instanceof HostgateError && err.code === "not_found") return null;
    throw err;
  }
}

/** The entries of directory `path` (sorted), or [] when it does not exist. */
export async function listOrEmpty(host: HostProbe, path: string): Promise<string[]> {
  try {
    return (await host.readDir(path)).sort();
  } catch (err) {
    if (err instanceof HostgateError && err.code === "not_found") return [];
    throw err;
  }
}

/**
 * The fingerprint of `files` (absolute paths) and of every entry of `dirs` (one level, names sorted; the
 * directory's own listing is part of it, so an added or removed file changes it). Stats run concurrently (over
 * SSH each is one SFTP round trip). Returns the key and the newest mtime among the files of `dirs` (ms, null when
 * there are none), which callers report as the age of an index.
 */
export async function fileFingerprint(host: HostProbe, files: readonly string[], dirs: readonly string[] = []): Promise<{ key: string; newest_dir_mtime_ms: number | null }> {
  const listed = await Promise.all(dirs.map(async (d) => (await listOrEmpty(host, d)).map((n) => `${d}/${n}`)));
  const inDirs = listed.flat();
  const stats = await Promise.all([...files, ...inDirs].map((p) => statOrNull(host, p)));
  let newest: number | null = null;
  stats.slice(files.length).forEach((st) => {
    if (st !== null && st.is_file && (newest === null || st.mtime_ms > newest)) newest = st.mtime_ms;
  });
  const key = [...files, ...inDirs].map((p, i) => `${p}=${statKey(stats[i] ?? null)}`).join("\n");
  return { key, newest_dir_mtime_ms: newest };
}
