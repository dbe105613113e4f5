import { z } from "zod";
import { defineReadOnlyAction } from "../action.ts";
import { HostgateError } from "../../errors.ts";
import { PACKAGE_NAME, runTool } from "./package-tools.ts";

/** Parses RFC 822-style `Key: value` stanzas with continuation lines (dpkg, apt-cache show, rpm -qi). */
export function parseStanza(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  let last: string | null = null;
  for (const line of text.split("\n")) {
    if (line === "") { if (Object.keys(out).length > 0) break; continue; }
    const m = /^([A-Za-z][A-Za-z0-9 -]*?)\s*:\s?(.*)$/.exec(line);
    // Indented lines continue the last field (dpkg); so do unindented lines that are not `Key: value`
    // (rpm -qi prints the Description body unindented after `Description :`).
    if ((/^\s/.test(line) || !m) && last) { out[last] = out[last] ? `${out[last]}\n${line.trim()}` : line.trim(); continue; }
    if (m) { last = m[1]!; out[last] = m[2]!; }
  }
  return out;
}

/** GetPackageInfo: one package's installed and candidate versions, size, summary and description. */
export default defineReadOnlyAction({
  name: "GetPackageInfo",
  title: "Package details",
  description: "A package's versions and description.",
  params: z.object({ name: z.string().regex(PACKAGE_NAME, "an exact package name such as openssh-server") }).strict(),
  output: z.object({
    name: z.string(),
    installed_version: z.string().nullable(),
    candidate_version: z.string().nullable(),
    architecture: z.string().nullable(),
    installed_size_bytes: z.number().nullable(),
    summary: z.string(),
    description: z.string(),
  }),
  risk_level: "low",
  access: "read_only",
  families: ["debian", "fedora"],
  min_role: "observer",
  toolsets: ["packages"],
  host_derived: true,
  async run(params, ctx) {
    const notFound = (): never => {
      throw new HostgateError("not_found", `No package named ${params.name}.`, { hint: "Use search_packages to find the exact name." });
    };
    if (ctx.family === "debian") {
      const installed = parseStanza(await runTool(ctx, ["dpkg-query", "--status", "--", params.name], [0, 1]));
      const available = parseStanza(await runTool(ctx, ["apt-cache", "show", "--no-all-versions", "--", params.name], [0, 100]));
      const policy = await runTool(ctx, ["apt-cache", "policy", "--", params.name], [0, 100]);
      const isInstalled = (installed.Status ?? "").endsWith(" installed");
      const meta = isInstalled ? installed : available;
      if (!isInstalled && Object.keys(available).length === 0) notFound();
      const candidate = /Candidate:\s*(\S+)/.exec(policy)?.[1];
      const [summary, ...rest] = (meta.Description ?? "").split("\n");
      return {
        name: params.name,
        installed_version: isInstalled ? installed.Version ?? null : null,
        candidate_version: candidate && candidate !== "(none)" ? candidate : null,
        architecture: meta.Architecture ?? null,
        installed_size_bytes: meta["Installed-Size"] ? Number(meta["Installed-Size"]) * 1024 : null,
        summary: summary ?? "",
        description: rest.join("\n"),
      };
    }
    const info = parseStanza(await runTool(ctx, ["rpm", "-qi", "--", params.name], [0, 1]));
    const avail = await runTool(ctx, ["dnf", "--quiet", "--cacheonly", "repoquery", "--latest-limit=1", "--queryformat", "%{version}-%{release}", "--", params.name], [0, 1]).catch(() => "");
    if (!info.Name && avail.trim() === "") notFound();
    return {
      name: params.name,
      installed_version: info.Version ? `${info.Version}-${info.Release ?? ""}` : null,
      candidate_version: avail.trim().split("\n")[0] || null,
      architecture: info.Architecture ?? null,
      installed_size_bytes: info.Size ? Number(info.Size) : null,
      summary: info.Summary ?? "",
      description: info.Description ?? "",
    };
  },
});
