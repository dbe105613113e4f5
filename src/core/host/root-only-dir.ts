/**
 * THE rule for a directory chain root may create a file in and then use that file by name (AddSwapFile: mkswap and
 * swapon take a path, not a descriptor). Source: DESIGN.md "Root never follows a path a user or model can shape"
 * and issue 24's trial (a user renamed the new swap file away and put a link to a root-owned file in its place).
 *
 * A name inside a directory can be changed (renamed, replaced, re-linked) only by someone who may write that
 * directory, and the directory itself only by someone who may write its parent. So when every directory from `/`
 * down to the file's directory is a real directory (not a link), owned by root and writable neither by its group
 * nor by others, only root can change any name on the path: a check of the chain from the top down cannot be
 * raced by anyone else, and every later use of the path by name reaches the file root created. The sticky bit
 * (/tmp, /var/tmp) is not enough: it stops others deleting root's file, but not creating a name root has not
 * created yet, nor a link planted before. POSIX ACLs that grant write show in the group bits (the ACL mask), so
 * they are refused too.
 */

/** What the rule needs to know of one directory on the chain (lstat / fstat; undefined: the host could not tell). */
export interface ChainDirFacts {
  is_directory: boolean;
  is_symlink: boolean;
  uid?: number;
  /** Permission bits (0o7777 mask). */
  mode?: number;
}

/**
 * Why `path` (one directory of the chain, for the message) is not a directory only root can change, or null when
 * it is. Reasons are whole sentences' middles, e.g. "/home/alice is owned by uid 1000, not root".
 */
export function rootOnlyDirRefusal(path: string, st: ChainDirFacts): string | null {
  if (st.is_symlink) return `${path} is a symbolic link`;
  if (!st.is_directory) return `${path} is not a directory`;
  if (st.uid === undefined || st.mode === undefined) return `the owner and mode of ${path} cannot be read on this host`;
  if (st.uid !== 0) return `${path} is owned by uid ${st.uid}, not root`;
  if ((st.mode & 0o022) !== 0) {
    const who = [(st.mode & 0o020) !== 0 ? "its group" : "", (st.mode & 0o002) !== 0 ? "everyone" : ""].filter(Boolean).join(" and ");
    return `${path} is writable by ${who} (mode ${(st.mode & 0o7777).toString(8).padStart(4, "0")}${(st.mode & 0o1000) !== 0 ? "; the sticky bit does not stop a new name being planted" : ""})`;
  }
  return null;
}

/**
 * The directories from `/` down to `dir` itself, in that order: `/home/alice` → `/`, `/home`, `/home/alice`.
 * `dir` must be absolute and normalised (no `.`, `..`, `//`, trailing `/`); throws Error otherwise (a caller bug).
 */
export function chainOf(dir: string): string[] {
  if (!dir.startsWith("/") || (dir !== "/" && dir.split("/").slice(1).some((c) => c === "" || c === "." || c === ".."))) throw new Error(`not an absolute, normalised directory: ${JSON.stringify(dir)}`);
  const out = ["/"];
  if (dir === "/") return out;
  let at = "";
  for (const c of dir.split("/").slice(1)) {
    at = `${at}/${c}`;
    out.push(at);
  }
  return out;
}
