import type { ActionContext } from "../action.ts";
import { HostgateError } from "../../errors.ts";
import { SERVICE_UNIT } from "../../service/units.ts";

/**
 * Units hostgate refuses to mask or to limit, with why. Sources: systemd's own units that every other unit's
 * logging and control depends on (systemd-journald(8), dbus-daemon(1), systemd.special(7): init.scope is PID 1,
 * -.slice the root slice), and hostgate's own service (a mask or a memory cap could stop the approvals path).
 */
const PROTECTED: readonly { match: RegExp; why: string }[] = [
  { match: /^hostgate[^/]*\.(service|socket)$/, why: "it is hostgate's own unit: the daemon that approves and audits changes" },
  { match: /^(dbus|dbus-broker)\.(service|socket)$/, why: "the system bus: systemd itself, logind and hostgate are controlled through it" },
  { match: /^systemd-journald(-[a-z-]+)?\.(service|socket)$/, why: "journald: every unit's logs go through it" },
  { match: /^(init\.scope|-\.slice|-\.mount|system\.slice)$/, why: "it belongs to PID 1 (systemd.special(7))" },
];

/** The unit that holds process `pid` on this host, from /proc/<pid>/cgroup (cgroup v2 `0::/…/name.service`), or null. */
async function unitOfPid(ctx: Pick<ActionContext, "host">, pid: number): Promise<string | null> {
  if (pid <= 0) return null;
  try {
    const text = await ctx.host.readText(`/proc/${pid}/cgroup`, { singleRead: true });
    const path = text.split("\n").find((l) => l.startsWith("0::"))?.slice(3) ?? "";
    return path.split("/").reverse().find((p) => /\.(service|scope)$/.test(p)) ?? null;
  } catch {
    return null;
  }
}

/**
 * Throws `invalid_params` (as SignalProcess refuses pid 1) naming the unit and the reason when `unit` is one hostgate never masks or limits: see
 * {@link PROTECTED}, plus on `local` the unit the daemon process itself runs in (self_pid's cgroup).
 */
export async function refuseProtectedUnit(ctx: Pick<ActionContext, "host" | "self_pid">, unit: string, verb: string): Promise<void> {
  const hit = PROTECTED.find((p) => p.match.test(unit));
  const own = hit === undefined && unit === (await unitOfPid(ctx, ctx.self_pid));
  if (hit === undefined && !own && unit !== SERVICE_UNIT) return;
  const why = hit?.why ?? "hostgate's daemon runs in it";
  throw new HostgateError("invalid_params", `hostgate does not ${verb} ${unit}: ${why}.`, { hint: "Do it at a root shell yourself if you really mean it; hostgate will not plan it.", details: { unit } });
}
