/**
 * Parsing of `apt-get -s` (simulate) output. apt prints one line per dpkg step (apt-get(8), `-s`):
 * `Inst NAME [OLD] (NEW ORIGIN [ARCH])` installs or upgrades, `Remv NAME [VER]` removes, `Purg NAME [VER]`
 * removes with configuration, `Conf NAME (VER …)` configures an unpacked package (not a separate change).
 * The human-readable part above them carries the warnings we surface. Requires LC_ALL=C (English).
 */

/** One package change of a simulated transaction; versions are Debian version strings. */
export interface PackageChange {
  action: "install" | "upgrade" | "reinstall" | "remove" | "purge" | "downgrade";
  name: string;
  /** Installed version before the change; null for a new install. */
  from_version: string | null;
  /** Version after the change; null for remove/purge. */
  to_version: string | null;
  /** Architecture, when apt prints it (Inst lines only). */
  arch: string | null;
}

/** A parsed simulation: changes in apt's order, apt's own warnings, and essential packages it would remove. */
export interface AptSimulation {
  changes: PackageChange[];
  warnings: string[];
  essential_removals: string[];
}

const INST = /^Inst (\S+)(?: \[([^\]]+)\])?(?: \((\S+) .*?(?:\[([^\]]+)\])?\))?/;
const REMV = /^(Remv|Purg) (\S+)(?: \[([^\]]+)\])?/;

/** Indented name lists that follow a header line, e.g. apt's "essential packages will be removed". */
function namesAfter(lines: readonly string[], header: RegExp): string[] {
  const start = lines.findIndex((l) => header.test(l));
  if (start < 0) return [];
  const out: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (/^This should NOT be done/.test(line)) continue;
    if (!line.startsWith(" ")) break;
    out.push(...line.trim().split(/\s+/));
  }
  return out;
}

/**
 * Parses `apt-get -s install|remove|purge` stdout. An `Inst` with an old version is an upgrade, a
 * reinstall when both versions are equal, or a downgrade when apt lists the package under "DOWNGRADED".
 */
export function parseAptSimulation(stdout: string): AptSimulation {
  const lines = stdout.split("\n");
  const changes: PackageChange[] = [];
  for (const line of lines) {
    const inst = INST.exec(line);
    if (inst) {
      const from = inst[2] ?? null;
      const to = inst[3] ?? null;
      changes.push({ action: from === null ? "install" : from === to ? "reinstall" : "upgrade", name: inst[1]!, from_version: from, to_version: to, arch: inst[4] ?? null });
      continue;
    }
    const rm = REMV.exec(line);
    if (rm) changes.push({ action: rm[1] === "Purg" ? "purge" : "remove", name: rm[2]!, from_version: rm[3] ?? null, to_version: null, arch: null });
  }
  const downgraded = new Set(namesAfter(lines, /^The following packages will be DOWNGRADED:/));
  for (const c of changes) if (c.action === "upgrade" && downgraded.has(c.name)) c.action = "downgrade";
  const essential = namesAfter(lines, /^WARNING: The following essential packages will be removed/);
  const warnings: string[] = [];
  if (essential.length > 0) warnings.push(`ESSENTIAL packages would be removed: ${essential.join(", ")}. apt refuses this without manual confirmation; the system may become unusable.`);
  const held = namesAfter(lines, /^The following held packages will be changed:/);
  if (held.length > 0) warnings.push(`Held packages would be changed: ${held.join(", ")}.`);
  const unauth = namesAfter(lines, /^WARNING: The following packages cannot be authenticated/);
  if (unauth.length > 0) warnings.push(`Packages cannot be authenticated: ${unauth.join(", ")}.`);
  for (const line of lines) if (/^Note, selecting /.test(line)) warnings.push(line.trim());
  return { changes, warnings, essential_removals: essential };
}

/** One line per change, e.g. `upgrade bash 5.2.15-2+b8 → 5.2.15-2+b13 [amd64]`. */
export function renderChanges(changes: readonly PackageChange[]): string {
  if (changes.length === 0) return "(no package changes)";
  return changes.map((c) => {
    const versions = c.from_version && c.to_version ? `${c.from_version} → ${c.to_version}` : c.to_version ?? c.from_version ?? "";
    return `${c.action.padEnd(9)} ${c.name} ${versions}${c.arch ? ` [${c.arch}]` : ""}`.trimEnd();
  }).join("\n");
}
