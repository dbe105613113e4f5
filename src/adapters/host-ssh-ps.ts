import { HostgateError } from "../core/errors.ts";
import { shellJoin } from "../core/inventory/target.ts";
import type { ProcessTableText } from "../ports/host-probe.ts";
import type { SshSession } from "./exec-ssh/session.ts";
import { incomplete, runRemote, sessionExecOpener } from "./remote-exec.ts";

/**
 * The fixed remote reader of a process listing (issue 20): ONE exec channel per call runs this constant command,
 * which prints /etc/passwd, /proc/stat, /proc/uptime and every /proc/[pid]/stat, status and cmdline, each framed
 * by a header line `F <bytes> <path>` (then exactly that many bytes) or `E 0 <path>` (could not be read: the
 * process exited). The byte counts come from awk in the C locale, so no text a process puts in its name or
 * command line can forge a frame; the paths in headers are the fixed names and the pids the shell's glob found.
 * Nothing from a request reaches the command: it takes no argument.
 *
 * awk, not a loop of `cat`: one process reads every file (a `cat` per pid would start hundreds of processes).
 * mawk, gawk and BusyBox awk read with getline, which returns -1 for a file that vanished (a process that
 * exited), where naming it as an input file would end the whole run. cmdline is read with NUL as the record
 * separator (BusyBox awk cuts a record at NUL: there a command line keeps its first argument only), status
 * keeps only the lines the listing uses, and a command line is cut at 16 KiB as the local read cuts it.
 */
/** The awk program (see the module comment); it reads the files named as its arguments (host-ssh-ps-reader.ts runs it too). */
export const PROCESS_TABLE_AWK = String.raw`
function emit(f, rs, pick, max,   s, line, r) {
  RS = rs; s = ""
  while ((r = (getline line < f)) > 0) {
    if (pick && line !~ /^(Name|Uid|VmSize|VmRSS):/) continue
    s = s line rs
    if (max && length(s) >= max) break
  }
  close(f)
  if (r < 0) { printf "E 0 %s\n", f; return }
  if (max && length(s) > max) s = substr(s, 1, max)
  printf "F %d %s\n%s", length(s), f, s
}
BEGIN {
  nul = sprintf("%c", 0)
  for (i = 1; i < ARGC; i++) {
    f = ARGV[i]
    if (f ~ /^\/proc\/[0-9]+$/) { emit(f "/stat", "\n", 0, 0); emit(f "/status", "\n", 1, 0); emit(f "/cmdline", nul, 0, 16384) }
    else emit(f, "\n", 0, 0)
  }
  exit
}`;

/** The files the reader is given: the glob is the inner `sh`'s (the login shell only execs it, every word quoted). */
export const PROCESS_TABLE_FILES = "/etc/passwd /proc/stat /proc/uptime /proc/[0-9]*";
const SCRIPT = `exec awk "$1" ${PROCESS_TABLE_FILES}`;

/** The one command string sent (constant). */
export const PROCESS_TABLE_COMMAND = `LC_ALL=C exec ${shellJoin(["sh", "-c", SCRIPT, "sh", PROCESS_TABLE_AWK])}`;

/** Output cap: 64 MiB (a host of 4000 processes with long command lines stays well below). */
const MAX_OUTPUT = 64 * 1024 * 1024;
const TIMEOUT_MS = 30_000;

/**
 * Splits the reader's output into files. Throws `unavailable` on a frame that does not parse (a reader that is
 * not ours answered, or the output was cut).
 */
export function parseFrames(out: Buffer, host: string): Map<string, Buffer | null> {
  const files = new Map<string, Buffer | null>();
  let at = 0;
  while (at < out.length) {
    const nl = out.indexOf(10, at);
    const m = nl < 0 ? null : /^([FE]) (\d+) (\/[^\n]*)$/.exec(out.subarray(at, nl).toString("latin1"));
    const len = m ? Number(m[2]) : -1;
    if (!m || nl + 1 + len > out.length) {
      throw new HostgateError("unavailable", `${host}: the process table reader's output is malformed at byte ${at}.`, { hint: "Retry; if it persists, check the host's awk (mawk, gawk or BusyBox).", details: { host } });
    }
    files.set(m[3]!, m[1] === "F" ? out.subarray(nl + 1, nl + 1 + len) : null);
    at = nl + 1 + len;
  }
  return files;
}

/**
 * The one-shot form (a new exec channel per call; list_processes uses the kept reader, host-ssh-ps-reader.ts: this
 * stays for bench/remote-reads.ts's before/after). Runs the reader on `session` and returns the texts (UTF-8 decoded, as local reads decode them), pids in the
 * order the glob listed them. Resolves null when the host lacks `sh` or `awk` (exit 126/127). Throws
 * `unavailable` when it timed out, lost its connection, exited otherwise non-zero or was cut at the cap, and the
 * pool's errors when no channel could be opened.
 */
export async function readProcessTableOverSsh(session: SshSession, host: string): Promise<ProcessTableText | null> {
  const r = await runRemote(sessionExecOpener(session), PROCESS_TABLE_COMMAND, { timeoutMs: TIMEOUT_MS, maxOutputBytes: MAX_OUTPUT });
  if (r.timed_out || (r.exit_code === null && r.signal === null)) throw incomplete(host, "the process table reader", r);
  if (r.exit_code === 126 || r.exit_code === 127) return null;
  if (r.exit_code !== 0 || r.truncated) {
    throw new HostgateError("unavailable", `${host}: the process table reader ${r.truncated ? `printed more than ${MAX_OUTPUT} bytes` : `failed (exit ${r.exit_code ?? r.signal})`}: ${r.stderr.toString("utf8").trim().slice(0, 200)}`, {
      hint: "Narrow nothing here: retry; if it persists the host's awk or /proc is unusual.",
      details: { host },
    });
  }
  return tableOf(parseFrames(r.stdout, host));
}

/** The texts of a parsed frame map (UTF-8 decoded, as local reads decode them), pids in the order the glob listed them. */
export function tableOf(files: Map<string, Buffer | null>): ProcessTableText {
  const text = (p: string): string | null => files.get(p)?.toString("utf8") ?? null;
  const processes: ProcessTableText["processes"] = [];
  for (const [path, body] of files) {
    const m = /^\/proc\/(\d+)\/stat$/.exec(path);
    if (!m || body === null) continue;
    processes.push({ pid: Number(m[1]), stat: body.toString("utf8"), status: text(`/proc/${m[1]}/status`), cmdline: text(`/proc/${m[1]}/cmdline`) });
  }
  return { passwd: text("/etc/passwd"), stat: text("/proc/stat") ?? "", uptime: text("/proc/uptime") ?? "", processes };
}
