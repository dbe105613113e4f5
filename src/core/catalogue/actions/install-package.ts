import { z } from "zod";
import { defineMutatingAction } from "../action.ts";
import { applyPackageOp, packageApplyOutput, packagePreview } from "./package-change.ts";
import { PACKAGE_NAME } from "./package-tools.ts";

/**
 * InstallPackage: install (or upgrade) one package with its dependencies, without recommends.
 * Preview: `apt-get -s install --no-install-recommends -- NAME` parsed into package changes with versions
 * (Debian); `dnf --assumeno --setopt=install_weak_deps=False install -- NAME` on Fedora (untested on a
 * live Fedora host). Apply: the same with `-y`, DEBIAN_FRONTEND=noninteractive, 30-minute timeout.
 */
export default defineMutatingAction({
  name: "InstallPackage",
  title: "Install a package",
  description: "Install one package by exact name from the configured repositories (with dependencies, without recommended packages). The plan lists every package that would be installed, upgraded or removed, with versions.",
  params: z.object({ name: z.string().regex(PACKAGE_NAME, "an exact package name such as nginx") }).strict(),
  output: packageApplyOutput,
  risk_level: "medium",
  access: "mutating",
  families: ["debian", "fedora"],
  min_role: "operator",
  toolsets: ["packages"],
  host_derived: true,
  preview: (p, ctx) => packagePreview(ctx, "install", p.name),
  apply: (p, ctx) => applyPackageOp(ctx, "install", p.name),
});
