import type { ActionContext } from "../action.ts";
import { kbField, parseCmdline, parsePasswd, parseProcStat, pickProcStatus } from "../../host/proc-pid.ts";

/** The /proc/[pid]/status lines a process row needs. */
const STATUS_KEYS = ["Name", "Uid", "VmSize", "VmRSS"] as const;

/**
 * Clock ticks per second for /proc times. sysconf(_SC_CLK_TCK) is 100 on every Linux architecture the
 * kernel exports to user space (USER_HZ, include/asm-generic/param.h).
 */
export const USER_HZ = 100;

/** One process as the process tools report it. */
export interface ProcessInfo {
  pid: number;
  ppid: number;
  name: string;
  state: string;
  user: string | null;
  uid: number | null;
  threads: number;
  rss_bytes: number;
  vms_bytes: number;
  cpu_seconds: number;
  /** Average CPU use over the process lifetime, percent of one CPU (as ps(1) %CPU). */
  cpu_percent: number;
  started_at: string;
  argv: string[];
}

/** Reads boot time (epoch seconds, /proc/stat `btime`) and uptime (seconds, /proc/uptime). */
async function clockBase(ctx: ActionContext): Promise<{ btime: number; uptime: number }> {
  const stat = await ctx.host.readText("/proc/stat");
  const btime = Number(/^btime (\d+)$/m.exec(stat)?.[1] ?? 0);
  const uptime = Number((await ctx.host.readText("/proc/uptime")).split(" ")[0]);
  return { btime, uptime };
}

/** Reads the user map once per call; an unreadable /etc/passwd leaves names null. */
export async function readUsers(ctx: ActionContext): Promise<Map<number, string>> {
  try {
    return parsePasswd(await ctx.host.readText("/etc/passwd"));
  } catch {
    return new Map();
  }
}

/** Reads one process; null when it exited while being read (a normal race with /proc). */
export async function readProcess(ctx: ActionContext, pid: number, users: Map<number, string>, base?: { btime: number; uptime: number }): Promise<ProcessInfo | null> {
  const b = base ?? (await clockBase(ctx));
  try {
    const stat = parseProcStat(await ctx.host.readText(`/proc/${pid}/stat`));
    if (!stat) return null;
    const status = pickProcStatus(await ctx.host.readText(`/proc/${pid}/status`), STATUS_KEYS);
    const argv = parseCmdline(await ctx.host.readText(`/proc/${pid}/cmdline`, { maxBytes: 16384 }));
    const uidField = status.Uid?.split(/\s+/)[0];
    const uid = uidField === undefined ? null : Number(uidField);
    const cpuSeconds = stat.cpu_ticks / USER_HZ;
    const startAfterBoot = stat.start_ticks / USER_HZ;
    const elapsed = b.uptime - startAfterBoot;
    return {
      pid,
      ppid: stat.ppid,
      name: status.Name ?? stat.comm,
      state: stat.state,
      user: uid === null ? null : users.get(uid) ?? null,
      uid,
      threads: stat.threads,
      rss_bytes: kbField(status, "VmRSS"),
      vms_bytes: kbField(status, "VmSize"),
      cpu_seconds: cpuSeconds,
      cpu_percent: elapsed > 0 ? Math.round((cpuSeconds / elapsed) * 1000) / 10 : 0,
      started_at: new Date((b.btime + startAfterBoot) * 1000).toISOString(),
      argv,
    };
  } catch {
    return null;
  }
}

/** Reads every process visible in /proc. */
export async function readProcessTable(ctx: ActionContext): Promise<ProcessInfo[]> {
  const users = await readUsers(ctx);
  const base = await clockBase(ctx);
  const pids = (await ctx.host.readDir("/proc")).filter((d) => /^\d+$/.test(d)).map(Number);
  const all = await Promise.all(pids.map((pid) => readProcess(ctx, pid, users, base)));
  return all.filter((p): p is ProcessInfo => p !== null);
}
