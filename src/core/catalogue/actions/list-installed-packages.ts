import { z } from "zod";
import { defineReadOnlyAction, type ActionContext } from "../action.ts";
import { parseDpkgStatus, type InstalledPackage } from "../../host/dpkg-status.ts";
import { paginate } from "../../pagination.ts";
import { FileKeyedCache, statKey, statOrNull } from "./file-keyed-cache.ts";
import { PACKAGE_QUERY, runTool } from "./package-tools.ts";

const pkg = z.object({ name: z.string(), version: z.string(), architecture: z.string().nullable(), installed_size_bytes: z.number().nullable() });

/** `rpm -qa` with a tab-separated format: name, version-release, arch, size in bytes. */
export const RPM_ARGV = ["rpm", "-qa", "--queryformat", "%{NAME}\t%{VERSION}-%{RELEASE}\t%{ARCH}\t%{SIZE}\n"];

/** Rows of `rpm -qa` printed with {@link RPM_ARGV}'s format; `(none)` arch (gpg-pubkey) is null. */
export function parseRpmList(text: string): InstalledPackage[] {
  return text.split("\n").flatMap((line) => {
    const [name, version, arch, size] = line.split("\t");
    return name && version ? [{ name, version, architecture: arch && arch !== "(none)" ? arch : null, installed_size_bytes: size ? Number(size) : null }] : [];
  });
}

/** dpkg's database file (dpkg(1)); rpm's database (rpmdb.sqlite since rpm 4.16, Fedora 33; Packages before). */
export const DPKG_STATUS = "/var/lib/dpkg/status";
const RPM_DBS = ["/var/lib/rpm/rpmdb.sqlite", "/var/lib/rpm/Packages"];

/** Parsed and sorted package lists per host, keyed by the database file's (size, mtime, inode). */
const cache = new FileKeyedCache<InstalledPackage[]>();

const byNameArch = (a: InstalledPackage, b: InstalledPackage): number =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : (a.architecture ?? "") < (b.architecture ?? "") ? -1 : (a.architecture ?? "") > (b.architecture ?? "") ? 1 : 0;

/**
 * Every installed package of the host, sorted by name then architecture. Parsed again only when the database
 * file changed (dpkg replaces /var/lib/dpkg/status by rename on every change, so the inode moves even when size
 * and mtime would not); with no database file to key on (an rpm layout we do not know) nothing is cached.
 */
export async function installedPackages(ctx: ActionContext): Promise<InstalledPackage[]> {
  const dbs = ctx.family === "debian" ? [DPKG_STATUS] : RPM_DBS;
  const stats = await Promise.all(dbs.map((p) => statOrNull(ctx.host, p)));
  const key = stats.some((s) => s !== null) ? stats.map((s, i) => `${dbs[i]}=${statKey(s)}`).join("\n") : null;
  const hit = key === null ? undefined : cache.get(ctx.host, key);
  if (hit !== undefined) return hit;
  const all = (ctx.family === "debian" ? parseDpkgStatus(await ctx.host.readText(DPKG_STATUS)) : parseRpmList(await runTool(ctx, RPM_ARGV))).sort(byNameArch);
  if (key !== null) cache.set(ctx.host, key, all);
  return all;
}

/**
 * ListInstalledPackages: installed packages sorted by name, paginated. Debian family: the dpkg status file
 * (/var/lib/dpkg/status), no tool spawned; Fedora family: `rpm -qa` (the rpm database has no text form). The
 * parsed list is reused while the database file is unchanged ({@link installedPackages}).
 */
export default defineReadOnlyAction({
  name: "ListInstalledPackages",
  title: "Installed packages",
  description: "Installed packages, paginated; filter by name substring. Debian: dpkg status file; Fedora: spawns rpm -qa.",
  params: z.object({
    name: z.string().regex(PACKAGE_QUERY, "a substring of package names, such as ssl").optional(),
    limit: z.number().int().min(1).max(1000).default(200),
    cursor: z.string().max(200).optional(),
  }).strict(),
  output: z.object({ packages: z.array(pkg), total: z.number(), next_cursor: z.string().nullable() }),
  risk_level: "low",
  access: "read_only",
  families: ["debian", "fedora"],
  min_role: "observer",
  toolsets: ["packages"],
  host_derived: true,
  async run(params, ctx) {
    const all = await installedPackages(ctx);
    const needle = params.name?.toLowerCase();
    const matching = needle === undefined ? all : all.filter((p) => p.name.toLowerCase().includes(needle));
    const page = paginate(matching, params.limit, params.cursor, `installed\0${params.name ?? ""}`);
    return { packages: page.items, total: page.total, next_cursor: page.next_cursor };
  },
});
