import { z } from "zod";
import { defineReadOnlyAction } from "../action.ts";
import { installedVersions, PACKAGE_QUERY, runTool } from "./package-tools.ts";

const pkg = z.object({ name: z.string(), summary: z.string(), installed_version: z.string().nullable() });

/**
 * `dnf --quiet search` rows `NAME.ARCH : SUMMARY` (the `=== Name Matched: … ===` section lines have no ` : `);
 * the arch suffix is dropped. A summary holding ` : ` is kept whole.
 */
export function parseDnfSearch(text: string): { name: string; summary: string }[] {
  return text.split("\n").filter((l) => l.includes(" : ")).map((l) => {
    const i = l.indexOf(" : ");
    return { name: l.slice(0, i).trim().replace(/\.[^.]+$/, ""), summary: l.slice(i + 3).trim() };
  });
}

/** SearchPackages: package names and summaries matching words (apt-cache on Debian, dnf on Fedora). */
export default defineReadOnlyAction({
  name: "SearchPackages",
  title: "Search packages",
  description: "Search installable packages by words.",
  params: z.object({
    query: z.string().regex(/^[A-Za-z0-9+._ -]{1,128}$/, "words of letters, digits, space and + . _ -"),
    names_only: z.boolean().default(false),
    limit: z.number().int().min(1).max(500).default(50),
  }).strict(),
  output: z.object({ packages: z.array(pkg), total: z.number() }),
  risk_level: "low",
  access: "read_only",
  families: ["debian", "fedora"],
  min_role: "observer",
  toolsets: ["packages"],
  host_derived: true,
  async run(params, ctx) {
    const words = params.query.trim().split(/\s+/).filter((w) => PACKAGE_QUERY.test(w)).map((w) => w.replace(/[.+]/g, "\\$&"));
    let hits: { name: string; summary: string }[];
    if (ctx.family === "debian") {
      const text = await runTool(ctx, ["apt-cache", "search", ...(params.names_only ? ["--names-only"] : []), "--", ...words]);
      hits = text.split("\n").filter(Boolean).map((l) => {
        const i = l.indexOf(" - ");
        return i < 0 ? { name: l.trim(), summary: "" } : { name: l.slice(0, i), summary: l.slice(i + 3) };
      });
    } else {
      const text = await runTool(ctx, ["dnf", "--quiet", "--cacheonly", "search", ...words], [0, 1]);
      hits = parseDnfSearch(text);
    }
    hits.sort((a, b) => a.name.localeCompare(b.name));
    const page = hits.slice(0, params.limit);
    const installed = await installedVersions(ctx, page.map((h) => h.name));
    return { packages: page.map((h) => ({ ...h, installed_version: installed.get(h.name) ?? null })), total: hits.length };
  },
});
