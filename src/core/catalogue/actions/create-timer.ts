import { z } from "zod";
import { defineMutatingAction, type ActionContext } from "../action.ts";
import { HostgateError } from "../../errors.ts";
import { normalizeUnitArg } from "../../systemd/unit-name.ts";
import { describeState } from "./service-job.ts";
import { lineDiff } from "./set-unit-resource-limits.ts";
import { unitStateSchema } from "./systemd-schemas.ts";
import { checkSchedule, readTimerFile, timerPath, timerUnitText, unitOrNull, type TimerSpec } from "./timer-unit.ts";

/** Characters a calendar expression may hold (systemd.time(7): weekdays, dates, times, `*`, `~`, `..`, `,`, `/`, a time zone). */
const CALENDAR = /^[A-Za-z0-9*~:.,/+_ -]{1,128}$/;
/** A time span's characters (systemd.time(7): numbers and unit words, spaces between). */
const SPAN = /^[0-9][0-9A-Za-z. ]{0,63}$/;

const params = z.strictObject({
  service: z.string().min(1).max(255).describe("Existing service the timer starts, e.g. backup.service"),
  timer: z.string().min(1).max(255).optional().describe("Timer unit name; default: the service's name with .timer"),
  on_calendar: z.string().regex(CALENDAR, "a systemd calendar expression such as daily or Mon..Fri 09:00").optional().describe("OnCalendar=, e.g. daily, *-*-* 03:30:00"),
  on_boot_sec: z.string().regex(SPAN, "a systemd time span such as 5min").optional().describe("OnBootSec=, e.g. 5min"),
  on_unit_active_sec: z.string().regex(SPAN, "a systemd time span such as 1h").optional().describe("OnUnitActiveSec=, e.g. 1h"),
  persistent: z.boolean().default(false).describe("Persistent=: catch up a run missed while off (OnCalendar only)"),
  randomized_delay_sec: z.string().regex(SPAN, "a systemd time span such as 10min").optional().describe("RandomizedDelaySec="),
});
type Params = z.infer<typeof params>;

/** The timer's name and its spec, or `invalid_params` / `invalid_unit_name` saying what to give. */
function resolve(p: Params): { timer: string; spec: TimerSpec } {
  const service = normalizeUnitArg(p.service, "service", { requireType: "service" });
  const timer = normalizeUnitArg(p.timer ?? service.replace(/\.service$/, ".timer"), "timer", { requireType: "timer" });
  if (p.on_calendar === undefined && p.on_boot_sec === undefined && p.on_unit_active_sec === undefined) {
    throw new HostgateError("invalid_params", "Give a schedule: on_calendar, on_boot_sec or on_unit_active_sec (or several).", { hint: "e.g. { service: \"backup.service\", on_calendar: \"daily\", persistent: true }" });
  }
  if (p.persistent && p.on_calendar === undefined) throw new HostgateError("invalid_params", "persistent applies to on_calendar only (systemd.timer(5)).", { hint: "Drop persistent, or give on_calendar." });
  return { timer, spec: { service, on_calendar: p.on_calendar, on_boot_sec: p.on_boot_sec, on_unit_active_sec: p.on_unit_active_sec, persistent: p.persistent, randomized_delay_sec: p.randomized_delay_sec } };
}

/** Everything the preview and apply both check: the service exists, the timer name is free or ours, the schedule parses. */
async function inspect(p: Params, ctx: ActionContext) {
  const { timer, spec } = resolve(p);
  const service = await unitOrNull(ctx, spec.service);
  if (service === null || service.load_state !== "loaded") {
    throw new HostgateError("no_such_unit", `${spec.service} does not exist on this host${service ? ` (load state ${service.load_state})` : ""}; a timer needs an existing service to start.`, { hint: "Check the name with list_units { type: \"service\" }, or create the service first." });
  }
  const file = await readTimerFile(ctx, timer);
  if (file.kind === "foreign") throw new HostgateError("invalid_params", `A unit named ${timer} exists and hostgate did not create it: ${file.why}.`, { hint: "Choose another timer name (the timer parameter); hostgate never writes over a unit it did not create." });
  const state = await unitOrNull(ctx, timer);
  if (file.kind === "absent" && state !== null && state.load_state === "loaded") {
    throw new HostgateError("invalid_params", `A unit named ${timer} already exists on this host (${describeState(state)}) outside ${timerPath(timer)}; hostgate did not create it.`, { hint: "Choose another timer name (the timer parameter)." });
  }
  const spans = [["on_boot_sec", p.on_boot_sec], ["on_unit_active_sec", p.on_unit_active_sec], ["randomized_delay_sec", p.randomized_delay_sec]].filter((s): s is [string, string] => s[1] !== undefined).map(([name, value]) => ({ name, value }));
  const schedule = await checkSchedule(ctx, p.on_calendar, spans);
  return { timer, spec, file, state, schedule, text: timerUnitText(spec) };
}

/**
 * CreateTimer: a systemd timer for an existing service, written as /etc/systemd/system/<timer> (atomically,
 * marked as hostgate's), then daemon-reload and `enable --now`. The schedule is checked by the host's own
 * `systemd-analyze calendar` / `timespan`. Refuses a missing service, a timer name taken by a unit hostgate did not
 * create, a bad calendar or span. The preview is the unit text (a diff when hostgate's file is there already);
 * the same timer again, enabled and running, is nothing to do.
 */
export const CreateTimer = defineMutatingAction({
  name: "CreateTimer",
  title: "Create a timer for a service",
  description: "Creates and starts a systemd timer (OnCalendar / OnBootSec / OnUnitActiveSec, Persistent, RandomizedDelaySec) for an existing service: /etc/systemd/system/<timer>, daemon-reload, enable --now. Calendar checked by the host's systemd-analyze.",
  params,
  output: z.object({ timer: z.string(), path: z.string(), changed: z.boolean(), state: unitStateSchema }),
  risk_level: "medium",
  access: "mutating",
  families: "all",
  min_role: "operator",
  needs: ["files", "systemd", "mutate"],
  toolsets: ["scheduling", "systemd"],
  host_derived: true,
  async preview(p, ctx) {
    const { timer, spec, file, state, schedule, text } = await inspect(p, ctx);
    const path = timerPath(timer);
    const sameFile = file.kind === "ours" && file.text === text;
    const enabled = state?.unit_file_state === "enabled";
    const running = state?.active_state === "active";
    const nothing = sameFile && enabled && running;
    const steps = [
      sameFile ? null : `${file.kind === "absent" ? "write" : "replace"} ${path}`,
      sameFile ? null : "daemon-reload",
      enabled ? null : `enable ${timer}`,
      running && sameFile ? null : `${running ? "restart" : "start"} ${timer}`,
    ].filter((s): s is string => s !== null);
    const when = schedule.normalized === null ? "" : `\nOnCalendar normalized: ${schedule.normalized}; next elapse: ${schedule.next_elapse ?? "never"}`;
    const body = file.kind === "ours" && !sameFile ? lineDiff(file.text, text) : text.trimEnd();
    return {
      summary: nothing ? `timer ${timer} for ${spec.service}: nothing to do` : `create timer ${timer} for ${spec.service}`,
      text: nothing
        ? `nothing to do: ${path} already says this, and ${timer} is enabled and active (${state?.sub_state ?? ""})${when}`
        : `${steps.join(", ")}${when}\n${body}`,
      current: { path, text: file.kind === "ours" ? file.text : null, sha256: file.kind === "ours" ? file.sha256 : null, state },
      intended: { path, text, nothing_to_do: nothing, schedule },
    };
  },
  async apply(p, ctx, approved) {
    const { timer, file, state, text } = await inspect(p, ctx);
    const path = timerPath(timer);
    const seen = (approved.current as { sha256: string | null }).sha256;
    const now = file.kind === "ours" ? file.sha256 : null;
    if (now !== seen) throw new HostgateError("precondition_failed", `${path} changed since the preview.`, { hint: "Plan the step again." });
    const changed = !(file.kind === "ours" && file.text === text);
    if (changed) {
      await ctx.mutator.writeFileAtomic(path, text, { expectedSha256: seen, mode: 0o644 });
      await ctx.units.system.reloadManager();
    }
    if (state?.unit_file_state !== "enabled") await ctx.units.system.enableUnitFiles([timer]);
    const job = changed && state?.active_state === "active" ? await ctx.units.system.restartUnit(timer) : await ctx.units.system.startUnit(timer);
    if (job.result !== "done") throw new HostgateError("action_failed", `${timer} did not start: job ${job.result}.`, { hint: `read_action { action: "ReadUnitLogsSinceStart", args: { unit: "${timer}" } } shows why.` });
    return { timer, path, changed, state: await ctx.units.system.getUnit(timer) };
  },
});
