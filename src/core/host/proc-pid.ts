/** Fields of /proc/[pid]/stat this project uses (proc(5) field numbers in comments). */
export interface ProcStat {
  pid: number;
  comm: string;
  state: string;
  ppid: number;
  /** utime + stime, in clock ticks (fields 14, 15). */
  cpu_ticks: number;
  /** Start time after boot, in clock ticks (field 22). */
  start_ticks: number;
  threads: number;
}

/**
 * Parses /proc/[pid]/stat. `comm` is in parentheses and may itself contain spaces and `)`, so the
 * split happens at the LAST `)`. Returns null for malformed input.
 */
export function parseProcStat(text: string): ProcStat | null {
  const open = text.indexOf("(");
  const close = text.lastIndexOf(")");
  if (open < 0 || close < open) return null;
  const rest = text.slice(close + 2).split(" ");
  if (rest.length < 20) return null; // truncated: field 22 (start time) is the last one read
  // rest[0] is field 3 (state); field n is rest[n - 3].
  const field = (n: number): number => Number(rest[n - 3]);
  return {
    pid: Number(text.slice(0, open).trim()),
    comm: text.slice(open + 1, close),
    state: rest[0] ?? "?",
    ppid: field(4),
    cpu_ticks: field(14) + field(15),
    start_ticks: field(22),
    threads: field(20),
  };
}

/** Parses the `Key:\tvalue` lines of /proc/[pid]/status. */
export function parseProcStatus(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const colon = line.indexOf(":");
    if (colon > 0) out[line.slice(0, colon)] = line.slice(colon + 1).trim();
  }
  return out;
}

/**
 * The named `Key:\tvalue` lines of /proc/[pid]/status only (trimmed values; absent keys are left out). Same
 * answers as {@link parseProcStatus} for those keys, without splitting the ~55 lines of every process.
 */
export function pickProcStatus(text: string, keys: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of keys) {
    const at = text.startsWith(`${key}:`) ? 0 : text.indexOf(`\n${key}:`) + 1;
    if (at === 0 && !text.startsWith(`${key}:`)) continue;
    const start = at + key.length + 1;
    const end = text.indexOf("\n", start);
    out[key] = text.slice(start, end < 0 ? text.length : end).trim();
  }
  return out;
}

/** `VmRSS:	  1234 kB` → bytes; 0 when absent (kernel threads). */
export function kbField(status: Record<string, string>, key: string): number {
  const m = /^(\d+)\s*kB$/.exec(status[key] ?? "");
  return m ? Number(m[1]) * 1024 : 0;
}

/** /proc/[pid]/cmdline is NUL-separated; a trailing NUL is dropped. */
export function parseCmdline(raw: string): string[] {
  if (raw === "") return [];
  const parts = raw.split("\0");
  if (parts[parts.length - 1] === "") parts.pop();
  return parts;
}

/**
 * Maps uid → user name from /etc/passwd text (passwd(5)). Like getpwuid(3) the first entry for a uid wins;
 * lines without a numeric uid (NIS `+::::::` compat entries, comments) are skipped.
 */
export function parsePasswd(text: string): Map<number, string> {
  const users = new Map<number, string>();
  for (const line of text.split("\n")) {
    const f = line.split(":");
    if (f.length >= 3 && f[0] && /^\d+$/.test(f[2]!) && !users.has(Number(f[2]))) users.set(Number(f[2]), f[0]);
  }
  return users;
}
