import { z } from "zod";
import { defineReadOnlyAction, type ActionContext } from "../action.ts";
import { HostgateError } from "../../errors.ts";

/** systemd-timedated's bus name, object and interface (org.freedesktop.timedate1(5)). */
const TIMEDATE = { dest: "org.freedesktop.timedate1", path: "/org/freedesktop/timedate1", iface: "org.freedesktop.timedate1" } as const;
/** systemd-timesyncd touches this file once the clock is synchronised (systemd-timesyncd.service(8)). */
const TIMESYNCD_FLAG = "/run/systemd/timesync/synchronized";

async function exists(ctx: ActionContext, path: string): Promise<boolean> {
  try {
    await ctx.host.stat(path);
    return true;
  } catch {
    return false;
  }
}

/** `/usr/share/zoneinfo/Europe/Paris` → `Europe/Paris` (the /etc/localtime link, localtime(5)). */
async function zoneFromFiles(ctx: ActionContext): Promise<string | null> {
  try {
    const link = await ctx.host.readLink("/etc/localtime");
    return /zoneinfo\/(.+)$/.exec(link)?.[1] ?? null;
  } catch {
    return null;
  }
}

/**
 * GetTimeSyncStatus: time zone, RTC mode and NTP state from systemd-timedated over D-Bus (the properties
 * `timedatectl show` prints) where the host's systemd is reached over D-Bus; otherwise from files: the
 * /etc/localtime link and timesyncd's /run/systemd/timesync/synchronized flag (`ntp_synchronized` null when
 * neither says). No tool is spawned.
 */
export default defineReadOnlyAction({
  name: "GetTimeSyncStatus",
  title: "Time sync status",
  description: "Time zone, NTP enabled/synchronised, RTC mode (timedated over D-Bus, else files).",
  params: z.object({}).strict(),
  output: z.object({
    source: z.enum(["timedated", "files"]),
    timezone: z.string().nullable(),
    ntp_enabled: z.boolean().nullable(),
    ntp_synchronized: z.boolean().nullable(),
    can_ntp: z.boolean().nullable(),
    local_rtc: z.boolean().nullable(),
    time: z.string(),
  }),
  risk_level: "low",
  access: "read_only",
  families: "all",
  min_role: "observer",
  toolsets: ["time"],
  host_derived: true,
  async run(_params, ctx) {
    const time = new Date(ctx.clock.now()).toISOString();
    const system = ctx.units.system;
    if (system.properties !== undefined && !system.simulated) {
      try {
        const p = await system.properties({ destination: TIMEDATE.dest, path: TIMEDATE.path, iface: TIMEDATE.iface });
        const flag = (k: string): boolean | null => (typeof p[k] === "boolean" ? p[k] : null);
        return { source: "timedated" as const, timezone: typeof p.Timezone === "string" && p.Timezone !== "" ? p.Timezone : null, ntp_enabled: flag("NTP"), ntp_synchronized: flag("NTPSynchronized"), can_ntp: flag("CanNTP"), local_rtc: flag("LocalRTC"), time };
      } catch (err) {
        if (!(err instanceof HostgateError)) throw err; // no timedated on this bus: the files below
      }
    }
    const synced = await exists(ctx, TIMESYNCD_FLAG);
    return { source: "files" as const, timezone: await zoneFromFiles(ctx), ntp_enabled: null, ntp_synchronized: synced ? true : null, can_ntp: null, local_rtc: null, time };
  },
});
