import { z } from "zod";
import { defineReadOnlyAction } from "../action.ts";
import { HostgateError } from "../../errors.ts";
import { managerFor, userParam } from "./systemd-schemas.ts";

const timer = z.object({
  unit: z.string(),
  /** The unit it starts (Timer.Unit). */
  activates: z.string(),
  active_state: z.string(),
  /** Next elapse, ISO 8601, or null when it will not elapse again. */
  next_elapse: z.string().nullable(),
  /** Last trigger, ISO 8601, or null when it never triggered. */
  last_trigger: z.string().nullable(),
  /** OnCalendar= expressions, as systemd normalised them. */
  calendar: z.array(z.string()),
  persistent: z.boolean(),
});

const iso = (usec: number | null): string | null => (usec === null || usec <= 0 ? null : new Date(Math.floor(usec / 1000)).toISOString());
const n = (v: unknown): number | null => (typeof v === "number" ? v : null);

/**
 * The next elapse as `systemctl list-timers` shows it: the earlier of the realtime (OnCalendar=) and the
 * monotonic (OnBootSec=…) one, the latter moved to wall-clock time by the manager's dual userspace timestamp
 * (realtime − monotonic of the same instant). µs since the epoch, or null.
 */
export function nextElapseUsec(realtime: number | null, monotonic: number | null, offsetUsec: number): number | null {
  const r = realtime !== null && realtime > 0 ? realtime : null;
  const m = monotonic !== null && monotonic > 0 ? monotonic + offsetUsec : null;
  if (r === null) return m;
  if (m === null) return r;
  return Math.min(r, m);
}

/** ListTimers: systemd timer units with next and last elapse (D-Bus Timer properties, what `systemctl list-timers --all` reads). */
export default defineReadOnlyAction({
  name: "ListTimers",
  title: "Timers",
  description: "systemd timers: next and last elapse, the unit each activates, calendar.",
  params: z.object({ user: userParam }).strict(),
  output: z.object({ timers: z.array(timer) }),
  risk_level: "low",
  access: "read_only",
  families: "all",
  min_role: "observer",
  toolsets: ["scheduling"],
  host_derived: true,
  needs: ["systemd"],
  async run(params, ctx) {
    const manager = managerFor(ctx.units, params.user);
    if (!manager.properties) throw new HostgateError("unavailable", "This host's systemd backend has no D-Bus properties (timers need them).", { hint: "list_units { type: \"timer\" } lists the timers without their elapse times; read_action { action: \"ListCronJobs\" } lists cron jobs." });
    const mgr = await manager.properties({ unit: null, iface: "Manager" });
    const offset = (n(mgr.UserspaceTimestamp) ?? 0) - (n(mgr.UserspaceTimestampMonotonic) ?? 0);
    const rows = (await manager.listUnits({ types: ["timer"] })).filter((r) => r.load_state === "loaded");
    const timers = await Promise.all(rows.map(async (r) => {
      const t = await manager.properties!({ unit: r.unit, iface: "Timer" });
      const calendar = Array.isArray(t.TimersCalendar) ? (t.TimersCalendar as unknown[][]).map((c) => String(c[1])) : [];
      return {
        unit: r.unit,
        activates: typeof t.Unit === "string" ? t.Unit : "",
        active_state: r.active_state,
        next_elapse: iso(nextElapseUsec(n(t.NextElapseUSecRealtime), n(t.NextElapseUSecMonotonic), offset)),
        last_trigger: iso(n(t.LastTriggerUSec)),
        calendar,
        persistent: t.Persistent === true,
      };
    }));
    return { timers };
  },
});
