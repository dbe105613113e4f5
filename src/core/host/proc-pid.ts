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
 * split happens at the LAST `)`. Returns null for malformed input. Fields are found by scanning for the
 * spaces between them, without splitting the ~50 fields of every process into strings.
 */
export function parseProcStat(text: string): ProcStat | null {
  const open = text.indexOf("(");
  const close = text.lastIndexOf(")");
  if (open < 0 || close < open) return null;
  let state = "?";
  let ppid = 0;
  let utime = 0;
  let stime = 0;
  let threads = 0;
  // Field n (proc(5) numbering: 3 is the state, just after ") ") runs from `from` to the next space.
  for (let n = 3, from = close + 2; ; n++) {
    const space = text.indexOf(" ", from);
    const end = space < 0 ? text.length : space;
    if (n === 3) state = text.slice(from, end);
    else if (n === 4) ppid = intAt(text, from, end);
    else if (n === 14) utime = intAt(text, from, end);
    else if (n === 15) stime = intAt(text, from, end);
    else if (n === 20) threads = intAt(text, from, end);
    else if (n === 22) {
      return { pid: Number(text.slice(0, open).trim()), comm: text.slice(open + 1, close), state, ppid, cpu_ticks: utime + stime, start_ticks: intAt(text, from, end), threads };
    }
    if (space < 0) return null; // truncated: field 22 (start time) is the last one read
    from = space + 1;
  }
}

/** `Number(text.slice(from, end))` without the substring when the field is plain ASCII digits. */
function intAt(text: string, from: number, end: number): number {
  let v = 0;
  for (let i = from; i < end; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return Number(text.slice(from, end));
    v = v * 10 + d;
  }
  return v;
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
