import type { ActionContext } from "../action.ts";
import type { ProcessTableText } from "../../../ports/host-probe.ts";
import { bootTimeSeconds } from "../../host/proc-stat.ts";
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
async function clockBase(ctx: ActionContext): Promise<ClockBase> {
  // Both at once: over SSH each is a round trip (issue 20).
  const [stat, up] = await Promise.all([ctx.host.readText("/proc/stat"), ctx.host.readText("/proc/uptime")]);
  return clockBaseOf(stat, up);
}

/** Boot time and uptime from the texts of /proc/stat and /proc/uptime. */
function clockBaseOf(stat: string, up: string): ClockBase {
  const btime = bootTimeSeconds(stat);
  const uptime = Number(up.split(" ")[0]);
  return { btime, uptime };
}

/** The parsed /etc/passwd of each host probe, with the lstat figures it was read under. */
const userMaps = new WeakMap<ActionContext["host"], { mtime_ms: number; size: number; users: Map<number, string> }>();

/**
 * The uid → user name map of /etc/passwd. Parsed again only when the file's mtime or size changed since the last
 * read (an lstat, against a read and a parse per call); a symlinked /etc/passwd is read every time. An unreadable
 * /etc/passwd leaves names null (an empty map). The map is shared between calls: callers must not change it.
 */
export async function readUsers(ctx: ActionContext): Promise<Map<number, string>> {
  try {
    const st = await ctx.host.stat("/etc/passwd");
    const known = userMaps.get(ctx.host);
    if (st.is_file && known?.mtime_ms === st.mtime_ms && known.size === st.size) return known.users;
    const users = parsePasswd(await ctx.host.readText("/etc/passwd"));
    // Read after the lstat: a change in between leaves figures older than the text, so the next call reads again.
    if (st.is_file) userMaps.set(ctx.host, { mtime_ms: st.mtime_ms, size: st.size, users });
    return users;
  } catch {
    return new Map();
  }
}

/** Clock base of one call: boot time (epoch seconds) and uptime (seconds). */
export interface ClockBase {
  btime: number;
  uptime: number;
}

/** What /proc/[pid]/stat alone tells about a process: enough to sort by CPU or pid. */
export interface ProcessStat {
  pid: number;
  ppid: number;
  comm: string;
  state: string;
  threads: number;
  cpu_seconds: number;
  /** Average CPU use over the process lifetime, percent of one CPU (as ps(1) %CPU). */
  cpu_percent: number;
  /** Start time, milliseconds since the epoch (formatted as `started_at` only for the rows answered). */
  started_ms: number;
}

/** A process row without its command line: every field the list filters and sorts on except `argv`. */
export type ProcessHead = Omit<ProcessInfo, "argv">;

/**
 * A /proc/[pid] file that the kernel produces whole on the first read(2) (one seq_file record, or cmdline's
 * copy loop): a short read is its end, so no second read is needed to see end of file.
 */
const ONE_READ = { singleRead: true } as const;

/** Reads and parses /proc/[pid]/stat; null when the process exited (a normal race with /proc). */
export async function readProcessStat(ctx: ActionContext, pid: number, base: ClockBase): Promise<ProcessStat | null> {
  try {
    return statFromText(pid, await ctx.host.readText(`/proc/${pid}/stat`, ONE_READ), base);
  } catch {
    return null;
  }
}

/** Parses the text of /proc/[pid]/stat into a stat row; null when it does not parse. */
function statFromText(pid: number, text: string, base: ClockBase): ProcessStat | null {
  const stat = parseProcStat(text);
  if (!stat) return null;
  const cpuSeconds = stat.cpu_ticks / USER_HZ;
  const startAfterBoot = stat.start_ticks / USER_HZ;
  const elapsed = base.uptime - startAfterBoot;
  return {
    pid,
    ppid: stat.ppid,
    comm: stat.comm,
    state: stat.state,
    threads: stat.threads,
    cpu_seconds: cpuSeconds,
    cpu_percent: elapsed > 0 ? Math.round((cpuSeconds / elapsed) * 1000) / 10 : 0,
    started_ms: (base.btime + startAfterBoot) * 1000,
  };
}

/** Adds what /proc/[pid]/status tells (name, uid and user, memory) to a stat row; null when the process exited. */
export async function readProcessHead(ctx: ActionContext, stat: ProcessStat, users: Map<number, string>): Promise<ProcessHead | null> {
  let text;
  try {
    text = await ctx.host.readText(`/proc/${stat.pid}/status`, ONE_READ);
  } catch {
    return null;
  }
  return headFromStatus(stat, text, users);
}

/** A stat row with the fields of its /proc/[pid]/status text (every line, or only those of STATUS_KEYS). */
function headFromStatus(stat: ProcessStat, text: string, users: Map<number, string>): ProcessHead {
  const status = pickProcStatus(text, STATUS_KEYS);
  const uidField = status.Uid?.split(/\s+/)[0];
  const uid = uidField === undefined ? null : Number(uidField);
  return {
    pid: stat.pid,
    ppid: stat.ppid,
    name: status.Name ?? stat.comm,
    state: stat.state,
    user: uid === null ? null : users.get(uid) ?? null,
    uid,
    threads: stat.threads,
    rss_bytes: kbField(status, "VmRSS"),
    vms_bytes: kbField(status, "VmSize"),
    cpu_seconds: stat.cpu_seconds,
    cpu_percent: stat.cpu_percent,
    started_at: new Date(stat.started_ms).toISOString(),
  };
}

/**
 * The name /proc/[pid]/status would show, when the stat row already tells it; null when status must be read. The
 * kernel prints the same comm in both files (proc_task_name), escaping `\` and newline in status only: a comm
 * without them is the status name.
 */
export function statusNameOf(stat: ProcessStat): string | null {
  return stat.comm.includes("\\") || stat.comm.includes("\n") ? null : stat.comm;
}

/** Largest command line read, in bytes (longer ones are cut there). */
const CMDLINE_MAX_BYTES = 16384;

/** Reads one process's command line (/proc/[pid]/cmdline); null when it exited. A kernel thread's is empty. */
export async function readArgv(ctx: ActionContext, pid: number): Promise<string[] | null> {
  try {
    return parseCmdline(await ctx.host.readText(`/proc/${pid}/cmdline`, { maxBytes: CMDLINE_MAX_BYTES, singleRead: true }));
  } catch {
    return null;
  }
}

/** Reads one process whole; null when it exited while being read (a normal race with /proc). */
export async function readProcess(ctx: ActionContext, pid: number, users: Map<number, string>, base?: ClockBase): Promise<ProcessInfo | null> {
  // The command line beside the stat (over SSH their round trips overlap, issue 20); status needs the stat row.
  const [stat, argv] = await Promise.all([(async () => readProcessStat(ctx, pid, base ?? (await clockBase(ctx))))(), readArgv(ctx, pid)]);
  const head = stat && (await readProcessHead(ctx, stat, users));
  return head && argv ? { ...head, argv } : null;
}

/**
 * Reads /proc/[pid]/stat of every process visible in /proc (one small file a process). A caller adds status
 * ({@link readProcessHead}) and command lines ({@link readArgv}) only for the rows it needs them for.
 */
export async function readProcessStats(ctx: ActionContext): Promise<ProcessStat[]> {
  // The listing starts at once, beside the clock reads: over SSH it also starts the one-round-trip process dump
  // (adapters/host-ssh.ts), the longest part of the call, which no longer waits for the clock reads (issue 20).
  const [base, names] = await Promise.all([clockBase(ctx), ctx.host.readDir("/proc")]);
  const pids = names.filter((d) => /^\d+$/.test(d)).map(Number);
  const all = await Promise.all(pids.map((pid) => readProcessStat(ctx, pid, base)));
  return all.filter((p): p is ProcessStat => p !== null);
}

/** One process of a listing with everything the answer can show: stat row, status fields and command line. */
export interface FullRow {
  stat: ProcessStat;
  head: ProcessHead;
  argv: string[];
}

/**
 * Every process of a table read at once ({@link ActionContext}'s `host.readProcessTable`: over SSH one command,
 * issue 20), parsed by the same parsers as the file-by-file reads; a process whose status or command line was
 * gone by the time it was read is left out, as the file-by-file path leaves it out. Users come from the table's
 * /etc/passwd (an unreadable one leaves names null).
 */
export function rowsFromTable(t: ProcessTableText): FullRow[] {
  const base = clockBaseOf(t.stat, t.uptime);
  const users = t.passwd === null ? new Map<number, string>() : parsePasswd(t.passwd);
  const rows: FullRow[] = [];
  for (const p of t.processes) {
    const stat = statFromText(p.pid, p.stat, base);
    if (!stat || p.status === null || p.cmdline === null) continue;
    rows.push({ stat, head: headFromStatus(stat, p.status, users), argv: parseCmdline(p.cmdline) });
  }
  return rows;
}
