/**
 * Separator-aware containment: `/var/log/x` is within `/var/log`, `/var/log-archive/x` is not (corpus case
 * M034). Both paths must already be absolute and normalised (no `.`/`..` segments, no duplicate slashes).
 */
export function isWithinRoot(path: string, root: string): boolean {
  const r = root.endsWith("/") ? root.slice(0, -1) : root;
  return path === r || path.startsWith(`${r}/`);
}
