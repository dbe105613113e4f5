/**
 * Parser for dpkg's database file /var/lib/dpkg/status (dpkg(1), deb-control(5)): one stanza per package,
 * separated by blank lines. Only packages whose `Status` ends in `installed` are returned (config-files,
 * half-installed and not-installed stanzas are skipped), as `dpkg-query -W` with `${db:Status-Abbrev}` `ii`.
 */
export interface InstalledPackage {
  name: string;
  version: string;
  architecture: string | null;
  /** `Installed-Size` is in KiB (deb-control(5)); here bytes, null when absent. */
  installed_size_bytes: number | null;
}

/** Parses the status file; continuation lines (leading space) are ignored, only the first line of a field is used. */
export function parseDpkgStatus(text: string): InstalledPackage[] {
  const out: InstalledPackage[] = [];
  let cur: Record<string, string> = {};
  const flush = (): void => {
    if (cur.Package && cur.Version && / installed$/.test(cur.Status ?? "")) {
      out.push({ name: cur.Package, version: cur.Version, architecture: cur.Architecture ?? null, installed_size_bytes: cur["Installed-Size"] ? Number(cur["Installed-Size"]) * 1024 : null });
    }
    cur = {};
  };
  for (const line of text.split("\n")) {
    if (line === "") { flush(); continue; }
    if (line.startsWith(" ") || line.startsWith("\t")) continue;
    const i = line.indexOf(":");
    if (i > 0) cur[line.slice(0, i)] = line.slice(i + 1).trim();
  }
  flush();
  return out;
}
