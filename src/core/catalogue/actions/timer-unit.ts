import type { ActionContext } from "../action.ts";
import { HostgateError } from "../../errors.ts";
import type { UnitState } from "../../systemd/payload.ts";

/**
 * The timer units CreateTimer writes and RemoveTimer removes (issue 24): one file per timer in
 * /etc/systemd/system, whose first line is {@link TIMER_MARKER}: hostgate only ever removes a file that carries it
 * (unless `force`), and never writes over a unit it did not create.
 */
export const TIMER_DIR = "/etc/systemd/system";
/** The ownership mark: the first line of every timer file hostgate writes. */
export const TIMER_MARKER = "# hostgate: created by CreateTimer; RemoveTimer removes it. Change it through hostgate.";

/** The schedule of one timer (systemd.timer(5)); spans and calendar as the host's systemd-analyze accepted them. */
export interface TimerSpec {
  service: string;
  on_calendar?: string | undefined;
  on_boot_sec?: string | undefined;
  on_unit_active_sec?: string | undefined;
  persistent: boolean;
  randomized_delay_sec?: string | undefined;
}

/** `/etc/systemd/system/<timer>`. `timer` is a checked unit name (no slash). */
export function timerPath(timer: string): string {
  return `${TIMER_DIR}/${timer}`;
}

/** The whole unit file for `spec` (systemd.timer(5), systemd.unit(5)): the marker, [Unit], [Timer], [Install]. */
export function timerUnitText(spec: TimerSpec): string {
  const lines = [TIMER_MARKER, "[Unit]", `Description=Runs ${spec.service} on a schedule (hostgate)`, "", "[Timer]", `Unit=${spec.service}`];
  if (spec.on_calendar !== undefined) lines.push(`OnCalendar=${spec.on_calendar}`);
  if (spec.on_boot_sec !== undefined) lines.push(`OnBootSec=${spec.on_boot_sec}`);
  if (spec.on_unit_active_sec !== undefined) lines.push(`OnUnitActiveSec=${spec.on_unit_active_sec}`);
  if (spec.persistent) lines.push("Persistent=true");
  if (spec.randomized_delay_sec !== undefined) lines.push(`RandomizedDelaySec=${spec.randomized_delay_sec}`);
  lines.push("", "[Install]", "WantedBy=timers.target");
  return `${lines.join("\n")}\n`;
}

/** What is at a timer's path in /etc/systemd/system: nothing, a hostgate timer, or something else (with why). */
export type TimerFile =
  | { kind: "absent" }
  | { kind: "ours"; text: string; sha256: string }
  | { kind: "foreign"; why: string; text: string | null; sha256: string | null };

/** Reads `/etc/systemd/system/<timer>` without following a link there (a mask is a link to /dev/null). */
export async function readTimerFile(ctx: Pick<ActionContext, "host" | "hash">, timer: string): Promise<TimerFile> {
  const path = timerPath(timer);
  let st;
  try {
    st = await ctx.host.stat(path);
  } catch (err) {
    if (err instanceof HostgateError && err.code === "not_found") return { kind: "absent" };
    throw err;
  }
  if (st.is_symlink) return { kind: "foreign", why: `${path} is a symlink (a mask or an alias), not a file hostgate wrote`, text: null, sha256: null };
  if (!st.is_file) return { kind: "foreign", why: `${path} is not a regular file`, text: null, sha256: null };
  const text = await ctx.host.readText(path, { maxBytes: 64 * 1024 });
  const sha256 = ctx.hash.sha256Hex(text);
  if (text.split("\n")[0] === TIMER_MARKER) return { kind: "ours", text, sha256 };
  return { kind: "foreign", why: `${path} was not written by hostgate (its first line is not hostgate's mark)`, text, sha256 };
}

/** The unit's state, or null when the manager knows no such unit (`no_such_unit`). */
export async function unitOrNull(ctx: Pick<ActionContext, "units">, unit: string): Promise<UnitState | null> {
  try {
    return await ctx.units.system.getUnit(unit);
  } catch (err) {
    if (err instanceof HostgateError && err.code === "no_such_unit") return null;
    throw err;
  }
}

/**
 * Checks a calendar expression and time spans with the host's own parser (`systemd-analyze calendar` and
 * `systemd-analyze timespan`, argv only, after `--`), so what is accepted is exactly what that host's systemd
 * will accept. Returns the calendar's normalized form and next elapse as systemd-analyze prints them.
 * `invalid_params` naming the value and systemd-analyze's reason; `unavailable` without systemd-analyze.
 */
export async function checkSchedule(ctx: Pick<ActionContext, "host">, calendar: string | undefined, spans: readonly { name: string; value: string }[]): Promise<{ normalized: string | null; next_elapse: string | null }> {
  const analyze = await ctx.host.which("systemd-analyze");
  if (analyze === null) throw new HostgateError("unavailable", "systemd-analyze is not installed on this host, so the schedule cannot be checked.", { hint: "Install systemd (it ships systemd-analyze) or use a host with it." });
  for (const s of spans) {
    const r = await ctx.host.run([analyze, "timespan", "--", s.value], { timeoutMs: 10_000 });
    if (r.exit_code !== 0) throw new HostgateError("invalid_params", `${s.name} ${JSON.stringify(s.value)} is not a systemd time span: ${firstLine(r.stderr)}`, { hint: "e.g. 15min, 1h 30min, 2d (systemd.time(7))." });
  }
  if (calendar === undefined) return { normalized: null, next_elapse: null };
  const r = await ctx.host.run([analyze, "calendar", "--", calendar], { timeoutMs: 10_000 });
  if (r.exit_code !== 0) throw new HostgateError("invalid_params", `on_calendar ${JSON.stringify(calendar)} is not a systemd calendar expression: ${firstLine(r.stderr)}`, { hint: "e.g. daily, Mon..Fri 09:00, *-*-* 03:30:00 (systemd.time(7), CALENDAR EVENTS)." });
  const field = (name: string): string | null => new RegExp(`^\\s*${name}: (.+)$`, "m").exec(r.stdout)?.[1]?.trim() ?? null;
  return { normalized: field("Normalized form"), next_elapse: field("Next elapse") };
}

function firstLine(text: string): string {
  return text.trim().split("\n")[0] || "rejected";
}
