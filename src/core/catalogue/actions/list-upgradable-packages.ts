import { z } from "zod";
import { defineReadOnlyAction } from "../action.ts";
import { paginate } from "../../pagination.ts";
import { runTool } from "./package-tools.ts";

const upgrade = z.object({ name: z.string(), from_version: z.string(), to_version: z.string(), origins: z.array(z.string()), security: z.boolean() });
type Upgrade = z.infer<typeof upgrade>;

/** `Inst NAME [OLD] (NEW ORIGIN[, ORIGIN…] [ARCH])`: apt-get -s lines that upgrade an installed package. */
const INST_UPGRADE = /^Inst (\S+) \[([^\]]+)\] \((\S+) (.*?)(?: \[[^\]]+\])?\)/;

/**
 * Upgrades in `apt-get -s dist-upgrade` output (LC_ALL=C). An upgrade is a security update when one of its
 * origins is a `-security` suite (Debian-Security:12/bookworm-security, Ubuntu's jammy-security), which is what
 * unattended-upgrades' default origins pattern keys on.
 */
export function parseAptUpgrades(stdout: string): Upgrade[] {
  const out: Upgrade[] = [];
  for (const line of stdout.split("\n")) {
    const m = INST_UPGRADE.exec(line);
    if (!m) continue;
    const origins = m[4]!.split(", ").map((o) => o.trim()).filter((o) => o !== "");
    out.push({ name: m[1]!, from_version: m[2]!, to_version: m[3]!, origins, security: origins.some((o) => /-security$/.test(o)) });
  }
  return out;
}

/** `dnf check-update` rows: `NAME.ARCH  VERSION-RELEASE  REPO`; security names from `dnf updateinfo list --security`. */
export function parseDnfCheckUpdate(stdout: string, installed: ReadonlyMap<string, string>, security: ReadonlySet<string>): Upgrade[] {
  const out: Upgrade[] = [];
  for (const line of stdout.split("\n")) {
    if (/^(Obsoleting|Security:|Last metadata)/.test(line)) break;
    const m = /^(\S+)\.(\S+)\s+(\S+)\s+(\S+)\s*$/.exec(line);
    if (!m) continue;
    out.push({ name: m[1]!, from_version: installed.get(m[1]!) ?? "", to_version: m[3]!, origins: [m[4]!], security: security.has(m[1]!) });
  }
  return out;
}

/**
 * ListUpgradablePackages: packages with a newer candidate in the local package index (no download: run
 * UpdatePackageIndex first for a fresh answer). Debian: spawns `apt-get -s dist-upgrade` (a simulation, no
 * lock); Fedora: `dnf --cacheonly check-update` and `updateinfo list --security`.
 */
export default defineReadOnlyAction({
  name: "ListUpgradablePackages",
  title: "Upgradable packages",
  description: "Pending upgrades from the local index, security updates marked. Spawns apt-get -s dist-upgrade / dnf check-update.",
  params: z.object({
    security_only: z.boolean().default(false),
    limit: z.number().int().min(1).max(1000).default(200),
    cursor: z.string().max(200).optional(),
  }).strict(),
  output: z.object({ upgrades: z.array(upgrade), total: z.number(), security_total: z.number(), next_cursor: z.string().nullable() }),
  risk_level: "low",
  access: "read_only",
  families: ["debian", "fedora"],
  min_role: "observer",
  toolsets: ["packages"],
  host_derived: true,
  async run(params, ctx) {
    let all: Upgrade[];
    if (ctx.family === "debian") {
      all = parseAptUpgrades(await runTool(ctx, ["apt-get", "-s", "-o", "Debug::NoLocking=true", "dist-upgrade"], [0]));
    } else {
      const listed = await runTool(ctx, ["dnf", "--quiet", "--cacheonly", "check-update"], [0, 100]);
      const sec = await runTool(ctx, ["dnf", "--quiet", "--cacheonly", "updateinfo", "list", "--security"], [0]).catch(() => "");
      const secNames = new Set(sec.split("\n").map((l) => l.trim().split(/\s+/)[2]?.replace(/-[^-]+-[^-]+$/, "") ?? "").filter((n) => n !== ""));
      const installedText = await runTool(ctx, ["rpm", "-qa", "--queryformat", "%{NAME}\t%{VERSION}-%{RELEASE}\n"]);
      const installed = new Map(installedText.split("\n").map((l) => l.split("\t") as [string, string]).filter(([n, v]) => n && v));
      all = parseDnfCheckUpdate(listed, installed, secNames);
    }
    const chosen = (params.security_only ? all.filter((u) => u.security) : all).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const page = paginate(chosen, params.limit, params.cursor, `upgradable\0${params.security_only}`);
    return { upgrades: page.items, total: page.total, security_total: all.filter((u) => u.security).length, next_cursor: page.next_cursor };
  },
});
