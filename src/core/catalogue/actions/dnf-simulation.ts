import type { PackageChange } from "./apt-simulation.ts";

/**
 * Parsing of `dnf --assumeno install|remove` output: the transaction table dnf prints before asking for
 * confirmation (sections `Installing:`, `Upgrading:`, `Removing:`… with rows `NAME ARCH VERSION REPO SIZE`).
 * UNTESTED against a live Fedora host (the development machine is Debian): written from dnf 4's table
 * layout; rows that dnf wraps because of a long name are not recognised.
 */

const SECTIONS: readonly [RegExp, PackageChange["action"]][] = [
  [/^Installing/, "install"],
  [/^Upgrading/, "upgrade"],
  [/^Reinstalling/, "reinstall"],
  [/^Downgrading/, "downgrade"],
  [/^Removing/, "remove"],
];

/** Parses dnf's transaction table; `warnings` carries protected-package and problem lines. */
export function parseDnfSimulation(stdout: string): { changes: PackageChange[]; warnings: string[] } {
  const changes: PackageChange[] = [];
  const warnings: string[] = [];
  let section: PackageChange["action"] | null = null;
  for (const line of stdout.split("\n")) {
    if (/protected packages|^Problem|^Error/i.test(line.trim())) { warnings.push(line.trim()); continue; }
    if (/^\S.*:\s*$/.test(line)) {
      section = SECTIONS.find(([re]) => re.test(line))?.[1] ?? null;
      continue;
    }
    if (/^Transaction Summary/.test(line)) { section = null; continue; }
    const cols = line.trim().split(/\s+/);
    if (section === null || !line.startsWith(" ") || cols.length < 4) continue;
    const [name, arch, version] = cols as [string, string, string];
    const removing = section === "remove";
    changes.push({ action: section, name, from_version: removing ? version : null, to_version: removing ? null : version, arch });
  }
  return { changes, warnings };
}
