import type { ActionContext } from "../action.ts";
import { HostgateError } from "../../errors.ts";
import { installedVersions, runTool } from "./package-tools.ts";
import type { PlannedChange } from "./planned-change.ts";

/**
 * HoldPackage / UnholdPackage's plan. Debian: the hold is dpkg's selection state, read with `apt-mark showhold`
 * and set with `apt-mark hold|unhold NAME` (apt-mark(8)). Fedora: dnf's versionlock plugin, read with
 * `dnf -q versionlock list` and set with `dnf versionlock add|delete NAME` (UNTESTED on a live Fedora host; needs
 * python3-dnf-plugin-versionlock). A held package is skipped by upgrades until unheld. The package must be
 * installed (`not_found` otherwise: holding a name that is not installed would silently match nothing).
 */
export async function holdPlan(op: "hold" | "unhold", name: string, ctx: ActionContext): Promise<PlannedChange> {
  const version = (await installedVersions(ctx, [name])).get(name);
  if (version === undefined) throw new HostgateError("not_found", `${name} is not installed, so there is nothing to ${op}.`, { hint: "read_action { action: \"ListInstalledPackages\" } or get_package_info shows the exact installed name." });
  const held = await isHeld(ctx, name);
  const current = { installed_version: version, held };
  const verb = op === "hold" ? "Hold" : "Unhold";
  if (held === (op === "hold")) return { summary: `${verb} ${name}: nothing to do (${held ? "already held" : "not held"})`, current, intended: { held }, steps: [] };
  const argv = ctx.family === "debian" ? ["apt-mark", op, name] : ["dnf", "versionlock", op === "hold" ? "add" : "delete", name];
  return {
    summary: `${verb} ${name} ${version}`,
    current,
    intended: { held: op === "hold" },
    steps: [argv],
    detail: op === "hold" ? `Upgrades (UpgradePackages, unattended-upgrades) will keep ${name} at ${version} until it is unheld.` : `${name} will be upgraded again by the next upgrade.`,
  };
}

/** Whether `name` is held now. */
async function isHeld(ctx: ActionContext, name: string): Promise<boolean> {
  if (ctx.family === "debian") return (await runTool(ctx, ["apt-mark", "showhold"])).split("\n").map((l) => l.trim()).includes(name);
  return versionLocked(await runTool(ctx, ["dnf", "-q", "versionlock", "list"]), name);
}

/**
 * Whether `dnf -q versionlock list` output locks `name`. dnf 4's plugin prints one pattern a line,
 * `NAME-[EPOCH:]VERSION-RELEASE.*` (an exclude starts with `!` and is not a lock); dnf 5 prints a block per
 * package whose line `Package name: NAME` names it. Written from both plugins' documented output (no Fedora host
 * here: UNTESTED against a live dnf).
 */
export function versionLocked(listText: string, name: string): boolean {
  const escaped = name.replace(/[.+]/g, "\\$&");
  const dnf4 = new RegExp(`^(\\d+:)?${escaped}-(\\d+:)?\\d`);
  return listText.split("\n").map((l) => l.trim()).some((l) => dnf4.test(l) || l === `Package name: ${name}`);
}
