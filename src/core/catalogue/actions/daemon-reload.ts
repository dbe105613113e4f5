import { z } from "zod";
import { defineMutatingAction } from "../action.ts";
import { managerFor, userParam } from "./systemd-schemas.ts";

/**
 * DaemonReload: the manager's Reload (`systemctl daemon-reload`). The preview lists the loaded units whose files
 * changed since the last reload (NeedDaemonReload); none means nothing to do.
 */
export const DaemonReload = defineMutatingAction({
  name: "DaemonReload",
  title: "Reload systemd's configuration",
  description: "systemctl daemon-reload: re-reads unit files and drop-ins. The preview lists units whose files changed since the last reload.",
  params: z.strictObject({ user: userParam }),
  output: z.object({ outcome: z.object({ unit: z.string(), operation: z.string(), result: z.string() }), units_needing_reload: z.array(z.string()) }),
  risk_level: "medium",
  access: "mutating",
  families: "all",
  min_role: "operator",
  needs: ["systemd"],
  toolsets: ["systemd"],
  host_derived: true,
  async preview(p, ctx) {
    const manager = managerFor(ctx.units, p.user);
    const where = p.user === undefined ? "system manager" : `user manager of ${p.user}`;
    const stale = await manager.unitsNeedingReload();
    const sim = manager.simulated ? "SIMULATED (mock systemd backend; nothing on this host changes): " : "";
    return {
      summary: `${sim}daemon-reload (${where})${stale.length === 0 ? ": nothing to do" : `: ${stale.length} unit(s) changed on disk`}`,
      text: `${sim}daemon-reload of the ${where}: ${stale.length === 0 ? "no loaded unit's files changed since the last reload; nothing to do" : `re-reads the changed files of ${stale.join(", ")}`}`,
      current: { units_needing_reload: stale },
      intended: { operation: "daemon-reload", manager: where, nothing_to_do: stale.length === 0 },
    };
  },
  async apply(p, ctx) {
    const manager = managerFor(ctx.units, p.user);
    const outcome = await manager.reloadManager();
    return { outcome, units_needing_reload: await manager.unitsNeedingReload() };
  },
});
