import { z } from "zod";
import { defineMutatingAction } from "../action.ts";
import { holdPlan } from "./package-hold.ts";
import { PACKAGE_NAME } from "./package-tools.ts";
import { applyPlanned, plannedApplyOutput, renderPlanned } from "./planned-change.ts";

const params = z.object({ name: z.string().regex(PACKAGE_NAME, "an exact installed package name such as nginx") }).strict();

/** UnholdPackage: see holdPlan (package-hold.ts). */
export default defineMutatingAction({
  name: "UnholdPackage",
  title: "Unhold a package",
  description: "Release a held package so upgrades include it again (apt-mark unhold; dnf versionlock delete on Fedora).",
  params,
  output: plannedApplyOutput,
  risk_level: "medium",
  access: "mutating",
  families: ["debian", "fedora"],
  min_role: "operator",
  toolsets: ["packages"],
  host_derived: true,
  needs: ["files", "mutate"],
  preview: async (p, ctx) => renderPlanned(await holdPlan("unhold", p.name, ctx)),
  apply: async (p, ctx) => applyPlanned(ctx, await holdPlan("unhold", p.name, ctx)),
});
