import { z } from "zod";
import { defineMutatingAction, type ActionContext } from "../action.ts";
import { HostgateError } from "../../errors.ts";
import { normalizeUnitArg } from "../../systemd/unit-name.ts";
import { describeState } from "./service-job.ts";
import { unitStateSchema } from "./systemd-schemas.ts";
import { readTimerFile, timerPath, unitOrNull } from "./timer-unit.ts";

const params = z.strictObject({
  timer: z.string().min(1).max(255).describe("Timer unit, e.g. backup.timer"),
  force: z.boolean().default(false).describe("Also remove a timer file in /etc/systemd/system that hostgate did not create"),
});
type Params = z.infer<typeof params>;

/** The timer's file and state, refusing what RemoveTimer never removes (see the action's description). */
async function inspect(p: Params, ctx: ActionContext) {
  const timer = normalizeUnitArg(p.timer, "timer", { requireType: "timer" });
  const path = timerPath(timer);
  const file = await readTimerFile(ctx, timer);
  const state = await unitOrNull(ctx, timer);
  if (file.kind === "foreign" && (file.text === null || !p.force)) {
    throw new HostgateError("invalid_params", `RemoveTimer refuses ${timer}: ${file.why}.`, {
      hint: file.text === null ? "Unmask it with UnmaskUnit, or disable it with DisableService." : "Pass force: true to remove this file anyway, or disable the timer with DisableService.",
    });
  }
  if (file.kind === "absent" && state !== null && state.load_state === "loaded") {
    throw new HostgateError("invalid_params", `RemoveTimer refuses ${timer}: it is not a file in ${path.slice(0, path.lastIndexOf("/"))} (a vendor or runtime unit), so hostgate did not create it.`, { hint: "Disable it with DisableService, or mask it with MaskUnit." });
  }
  return { timer, path, file, state };
}

/**
 * RemoveTimer: undoes CreateTimer: stops and disables the timer, deletes /etc/systemd/system/<timer>, then
 * daemon-reload. Only a file that carries hostgate's mark is removed, unless `force` (then any regular file there);
 * never a symlink (a mask) nor a unit outside /etc/systemd/system. A timer that is gone is nothing to do.
 */
export const RemoveTimer = defineMutatingAction({
  name: "RemoveTimer",
  title: "Remove a timer",
  description: "Stops, disables and deletes a timer hostgate created (/etc/systemd/system/<timer>, marked), then daemon-reload. force: true also removes an unmarked timer file there; never a vendor unit or a mask.",
  params,
  output: z.object({ timer: z.string(), path: z.string(), removed: z.boolean(), state: unitStateSchema.nullable() }),
  risk_level: "medium",
  access: "mutating",
  families: "all",
  min_role: "operator",
  needs: ["files", "systemd", "mutate"],
  toolsets: ["scheduling", "systemd"],
  host_derived: true,
  async preview(p, ctx) {
    const { timer, path, file, state } = await inspect(p, ctx);
    const nothing = file.kind === "absent";
    const owner = file.kind === "ours" ? "created by hostgate" : "NOT created by hostgate (force)";
    return {
      summary: nothing ? `remove timer ${timer}: nothing to do` : `remove timer ${timer}`,
      text: nothing
        ? `nothing to do: ${path} does not exist${state === null ? " and the manager knows no such unit" : ` (${describeState(state)})`}`
        : `stop ${timer}${state ? ` (${describeState(state)})` : ""}, disable it, delete ${path} (${owner}), daemon-reload:\n${(file.text ?? "").trimEnd()}`,
      current: { path, sha256: file.kind === "absent" ? null : file.sha256, state },
      intended: { path, removed: !nothing, nothing_to_do: nothing },
    };
  },
  async apply(p, ctx, approved) {
    const { timer, path, file } = await inspect(p, ctx);
    const seen = (approved.current as { sha256: string | null }).sha256;
    if ((file.kind === "absent" ? null : file.sha256) !== seen) throw new HostgateError("precondition_failed", `${path} changed since the preview.`, { hint: "Plan the step again." });
    if (file.kind === "absent") return { timer, path, removed: false, state: await unitOrNull(ctx, timer) };
    await ctx.units.system.stopUnit(timer);
    await ctx.units.system.disableUnitFiles([timer]);
    // /etc/systemd/system is root's and the name a checked unit name: rm removes that one entry, never through a link.
    const rm = await ctx.mutator.run(["rm", "-f", "--", path], { timeoutMs: 10_000 });
    if (rm.exit_code !== 0) throw new HostgateError("action_failed", `Deleting ${path} failed: ${rm.stderr.trim()}`, { details: { exit_code: rm.exit_code } });
    await ctx.units.system.reloadManager();
    return { timer, path, removed: true, state: await unitOrNull(ctx, timer) };
  },
});
