import type { ActionContext } from "../action.ts";
import { HostgateError } from "../../errors.ts";

/** Where the zone files live (tzfile(5)); /etc/localtime links into it. */
export const ZONEINFO = "/usr/share/zoneinfo";
export const LOCALTIME = "/etc/localtime";
/** Debian's plain-text copy of the zone name (tzdata keeps it beside /etc/localtime). */
export const ETC_TIMEZONE = "/etc/timezone";

/**
 * Whether systemd-timedated can be asked on this host: systemd is PID 1 (/run/systemd/system exists, sd_booted(3))
 * and timedatectl, its D-Bus client, is installed. When it is, SetTimezone and EnableNtp call timedated's
 * SetTimezone / SetNTP through timedatectl (spawned, argv only: hostgate's D-Bus port covers only the service manager).
 */
export async function timedatedPresent(ctx: ActionContext): Promise<string | null> {
  try {
    if (!(await ctx.host.stat("/run/systemd/system")).is_directory) return null;
  } catch {
    return null;
  }
  return ctx.host.which("timedatectl");
}

/** Runs timedatectl with `args` (read-only queries through the probe); `unavailable` with its words when it fails. */
export async function timedatectl(ctx: ActionContext, bin: string, args: string[], via: "probe" | "mutator"): Promise<string> {
  const argv = [bin, ...args];
  const r = via === "probe" ? await ctx.host.run(argv, { timeoutMs: 15_000 }) : await ctx.mutator.run(argv, { timeoutMs: 30_000 });
  if (r.exit_code !== 0) throw new HostgateError(via === "probe" ? "unavailable" : "action_failed", `timedatectl ${args.join(" ")} failed: ${r.stderr.trim().slice(0, 300) || `exit ${r.exit_code ?? r.signal}`}`);
  return r.stdout;
}

/** A zone name: words of letters, digits, `_`, `+`, `-` joined by `/` (at most three): never `.` or `..`. */
export const ZONE_NAME = /^[A-Za-z0-9_+-]+(\/[A-Za-z0-9_+-]+){0,2}$/;

/**
 * Checks that `zone` names a zone file under /usr/share/zoneinfo: the name has no dots (so no `..`), and the
 * file, with any link resolved, stays inside /usr/share/zoneinfo, is a regular file and starts with the TZif
 * magic (tzfile(5)). `invalid_params` otherwise, saying where to look.
 */
export async function checkZone(zone: string, ctx: ActionContext): Promise<void> {
  const bad = (why: string): HostgateError => new HostgateError("invalid_params", `${zone} is not a time zone of this host: ${why}.`, { hint: `Use a name under ${ZONEINFO} such as Europe/Berlin or UTC (timedatectl list-timezones).` });
  if (!ZONE_NAME.test(zone)) throw bad("a zone name is words joined by /, without dots");
  let real: string;
  try {
    real = await ctx.host.realPath(`${ZONEINFO}/${zone}`);
  } catch {
    throw bad(`there is no ${ZONEINFO}/${zone}`);
  }
  if (!real.startsWith(`${ZONEINFO}/`)) throw bad(`${ZONEINFO}/${zone} leads outside ${ZONEINFO}`);
  const st = await ctx.host.stat(real);
  if (!st.is_file) throw bad(`${ZONEINFO}/${zone} is not a zone file`);
  if (!(await ctx.host.readText(real, { maxBytes: 4 })).startsWith("TZif")) throw bad(`${ZONEINFO}/${zone} is not a TZif file`);
}

/** The zone /etc/localtime names (its link target below /usr/share/zoneinfo), or null when it is not such a link. */
export async function currentZone(ctx: ActionContext): Promise<string | null> {
  try {
    const st = await ctx.host.stat(LOCALTIME);
    if (!st.is_symlink) return null;
    const target = await ctx.host.readLink(LOCALTIME);
    const m = /(?:^|\/)zoneinfo\/(.+)$/.exec(target);
    return m ? m[1]! : null;
  } catch (err) {
    if (err instanceof HostgateError && err.code === "not_found") return null;
    throw err;
  }
}
