import { z } from "zod";
import { defineReadOnlyAction } from "../action.ts";
import { parseDpkgStatus, type InstalledPackage } from "../../host/dpkg-status.ts";
import { paginate } from "../../pagination.ts";
import { PACKAGE_QUERY, runTool } from "./package-tools.ts";

const pkg = z.object({ name: z.string(), version: z.string(), architecture: z.string().nullable(), installed_size_bytes: z.number().nullable() });

/** `rpm -qa` with a tab-separated format: name, version-release, arch, size in bytes. */
const RPM_ARGV = ["rpm", "-qa", "--queryformat", "%{NAME}\t%{VERSION}-%{RELEASE}\t%{ARCH}\t%{SIZE}\n"];

function parseRpmList(text: string): InstalledPackage[] {
  return text.split("\n").flatMap((line) => {
    const [name, version, arch, size] = line.split("\t");
    return name && version ? [{ name, version, architecture: arch && arch !== "(none)" ? arch : null, installed_size_bytes: size ? Number(size) : null }] : [];
  });
}

/**
 * ListInstalledPackages: installed packages sorted by name, paginated. Debian family: the dpkg status file
 * (/var/lib/dpkg/status), no tool spawned; Fedora family: `rpm -qa` (the rpm database has no text form).
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
    const all = ctx.family === "debian" ? parseDpkgStatus(await ctx.host.readText("/var/lib/dpkg/status")) : parseRpmList(await runTool(ctx, RPM_ARGV));
    const needle = params.name?.toLowerCase();
    const matching = (needle === undefined ? all : all.filter((p) => p.name.toLowerCase().includes(needle)))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : (a.architecture ?? "") < (b.architecture ?? "") ? -1 : 1));
    const page = paginate(matching, params.limit, params.cursor, `installed\0${params.name ?? ""}`);
    return { packages: page.items, total: page.total, next_cursor: page.next_cursor };
  },
});
