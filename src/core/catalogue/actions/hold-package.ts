import { z } from "zod";
import { defineMutatingAction } from "../action.ts";
import { holdPlan } from "./package-hold.ts";
import { PACKAGE_NAME } from "./package-tools.ts";
import { applyPlanned, plannedApplyOutput, renderPlanned } from "./planned-change.ts";

const params = z.object({ name: z.string().regex(PACKAGE_NAME, "an exact installed package name such as nginx") }).strict();

/** HoldPackage: see holdPlan (package-hold.ts). */
export default defineMutatingAction({
  name: "HoldPackage",
  title: "Hold a package",
  description: "Hold one installed package at its current version so upgrades skip it (apt-mark hold; dnf versionlock on Fedora).",
  params,
  output: plannedApplyOutput,
  risk_level: "medium",
  access: "mutating",
  families: ["debian", "fedora"],
  min_role: "operator",
  toolsets: ["packages"],
  host_derived: true,
  needs: ["files", "mutate"],
  preview: async (p, ctx) => renderPlanned(await holdPlan("hold", p.name, ctx)),
  apply: async (p, ctx) => applyPlanned(ctx, await holdPlan("hold", p.name, ctx)),
});
