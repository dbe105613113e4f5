import { z } from "zod";
import { defineMutatingAction } from "../action.ts";
import { applyPackageOp, packageApplyOutput, packagePreview } from "./package-change.ts";
import { PACKAGE_NAME } from "./package-tools.ts";

/**
 * RemovePackage: remove one installed package and whatever depends on it; `purge: true` also deletes its
 * configuration files (Debian). Preview: `apt-get -s remove|purge -- NAME` with loud warnings when apt
 * or dpkg mark a removed package Essential or Priority: required (apt-get -y then refuses, so apply fails
 * rather than removing it). Fedora: `dnf --assumeno remove` (untested on a live Fedora host).
 * Risk stays `high` statically; the warnings carry the critical cases.
 */
export default defineMutatingAction({
  name: "RemovePackage",
  title: "Remove a package",
  description: "Remove one installed package by exact name, plus packages that depend on it; `purge` also deletes its configuration files (Debian/Ubuntu). The plan lists every package removed and warns loudly about essential packages.",
  params: z.object({
    name: z.string().regex(PACKAGE_NAME, "an exact package name such as nginx"),
    purge: z.boolean().optional().describe("Also delete configuration files (apt-get purge). Default false"),
  }).strict(),
  output: packageApplyOutput,
  risk_level: "high",
  access: "mutating",
  families: ["debian", "fedora"],
  min_role: "operator",
  toolsets: ["packages"],
  host_derived: true,
  preview: (p, ctx) => packagePreview(ctx, p.purge ? "purge" : "remove", p.name),
  apply: (p, ctx) => applyPackageOp(ctx, p.purge ? "purge" : "remove", p.name),
});
