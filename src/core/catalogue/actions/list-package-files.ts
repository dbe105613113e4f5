import { z } from "zod";
import { defineReadOnlyAction, type ActionContext } from "../action.ts";
import { HostgateError } from "../../errors.ts";
import { paginate } from "../../pagination.ts";
import { PACKAGE_NAME, runTool } from "./package-tools.ts";

/** dpkg's file list of one package: `<name>.list`, or `<name>:<arch>.list` for Multi-Arch: same packages. */
async function dpkgList(ctx: ActionContext, name: string): Promise<string[] | null> {
  const dir = "/var/lib/dpkg/info";
  const names = (await ctx.host.readDir(dir)).filter((f) => f === `${name}.list` || (f.startsWith(`${name}:`) && f.endsWith(".list")));
  if (names.length === 0) return null;
  const paths = new Set<string>();
  for (const f of names.sort()) {
    for (const line of (await ctx.host.readText(`${dir}/${f}`)).split("\n")) if (line !== "" && line !== "/.") paths.add(line);
  }
  return [...paths];
}

/**
 * ListPackageFiles: the paths an installed package owns, paginated, in the package database's order. Debian
 * family: /var/lib/dpkg/info/<name>.list (no tool); Fedora family: `rpm -ql` (spawned).
 */
export default defineReadOnlyAction({
  name: "ListPackageFiles",
  title: "Package files",
  description: "Files an installed package owns, paginated. Debian: dpkg's .list file; Fedora: spawns rpm -ql.",
  params: z.object({
    name: z.string().regex(PACKAGE_NAME, "an exact installed package name such as openssh-server"),
    limit: z.number().int().min(1).max(5000).default(500),
    cursor: z.string().max(200).optional(),
  }).strict(),
  output: z.object({ name: z.string(), files: z.array(z.string()), total: z.number(), next_cursor: z.string().nullable() }),
  risk_level: "low",
  access: "read_only",
  families: ["debian", "fedora"],
  min_role: "observer",
  toolsets: ["packages"],
  host_derived: true,
  async run(params, ctx) {
    let files: string[] | null;
    if (ctx.family === "debian") files = await dpkgList(ctx, params.name);
    else {
      const text = await runTool(ctx, ["rpm", "-ql", "--", params.name], [0, 1]);
      files = / is not installed$/m.test(text) || text.trim() === "" ? null : text.split("\n").filter((l) => l.startsWith("/"));
    }
    if (files === null) throw new HostgateError("not_found", `${params.name} is not installed.`, { hint: "read_action { action: \"ListInstalledPackages\", args: { name } } finds the exact name of an installed package." });
    const page = paginate(files, params.limit, params.cursor, `files\0${params.name}`);
    return { name: params.name, files: page.items, total: page.total, next_cursor: page.next_cursor };
  },
});
