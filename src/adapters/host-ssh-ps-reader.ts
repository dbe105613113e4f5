import type { ClientChannel } from "ssh2";
import { HostgateError } from "../core/errors.ts";
import { shellJoin } from "../core/inventory/target.ts";
import type { ProcessTableText } from "../ports/host-probe.ts";
import { parseFrames, PROCESS_TABLE_AWK, PROCESS_TABLE_FILES, tableOf } from "./host-ssh-ps.ts";
import { KEPT_CHANNEL_IDLE_MS } from "./exec-ssh/pool.ts";
import type { OpenExec } from "./remote-exec.ts";

/**
 * The process table of a remote host from a reader that stays up between calls (issue 20, list_processes ≤ 50 ms).
 *
 * The one-shot reader (host-ssh-ps.ts) costs a new exec channel per call: sshd forks a session child, the login
 * shell starts, then `sh`, then awk. Measured on loopback at load 13–15: 56 ms of host CPU per call, of which
 * 25 ms is a bare remote `true` (sshd + login shell) and 13 ms the `sh` and awk execs; reading the ≈ 600 files is
 * the remaining ≈ 17 ms. This reader opens ONE exec channel running a `sh` loop and keeps it: each call writes one
 * newline, the loop runs the same awk over a fresh glob of /proc, then prints the end header `D <awk's exit
 * status> /`. A warm call is one write and its answer: no channel, no sshd fork, no login shell.
 *
 * Frames are the one-shot reader's (`F <bytes> <path>` + bytes, `E 0 <path>`), counted in bytes by awk; the end
 * header is recognised only where a frame header is due, so no command line can end an answer early or forge a
 * frame. The loop takes no input but newlines (what a request sends is fixed) and nothing from a request reaches
 * the command.
 *
 * Lifetime: opened on first use; closed after `idleMs` without a call (so the pool can close an idle connection),
 * by {@link SshProcessReader.close}, or after any failure (timeout, malformed or oversized answer); the next call
 * opens a new one. A kept channel found dead (the host killed the loop, the connection dropped) is reopened once
 * within the same call when it died before answering anything. Calls on one reader run one at a time.
 */

/** The loop: exits 127 at once when the host has no awk (the caller then reads files over SFTP). */
const LOOP = `command -v awk >/dev/null 2>&1 || exit 127
while read -r _; do awk "$1" ${PROCESS_TABLE_FILES}; echo "D $? /"; done`;

/** The one command string sent to open a reader (constant). */
export const PROCESS_READER_COMMAND = `LC_ALL=C exec ${shellJoin(["sh", "-c", LOOP, "sh", PROCESS_TABLE_AWK])}`;

/** Options of {@link SshProcessReader}. */
export interface SshProcessReaderOptions {
  /** Close the kept channel after this many ms without a call (default KEPT_CHANNEL_IDLE_MS, 20 000: below the pool's 60 s idle). */
  idleMs?: number;
  /** Budget of one answer, ms (default 30 000); past it the channel is closed and the call fails `unavailable`. */
  timeoutMs?: number;
  /** Largest answer, bytes (default 64 MiB). */
  maxBytes?: number;
}

interface Live {
  ch: ClientChannel;
  chunks: Buffer[];
  closed: boolean;
  code: number | null;
  signal: string | null;
  onChange: (() => void) | null;
}

type Outcome =
  | { kind: "answer"; body: Buffer; status: number }
  | { kind: "ended"; got: number; code: number | null; signal: string | null }
  | { kind: "failed"; why: string };

/**
 * Where the answer in `buf` ends, scanning frame by frame from `at` (a frame boundary): the end header's start
 * (`body`) and awk's exit status, or `resume` (the boundary to scan from once more bytes came). Throws on a
 * header that is neither a frame nor the end (a reader that is not ours, or a cut stream).
 */
export function scanAnswer(buf: Buffer, at: number): { body: number; status: number } | { resume: number } {
  for (;;) {
    const nl = buf.indexOf(10, at);
    if (nl < 0) return { resume: at };
    const head = buf.subarray(at, nl).toString("latin1");
    const end = /^D (\d+) \/$/.exec(head);
    if (end) return { body: at, status: Number(end[1]) };
    const m = /^[FE] (\d+) \/[^\n]*$/.exec(head);
    if (!m) throw new Error(`malformed header at byte ${at}`);
    const next = nl + 1 + Number(m[1]);
    if (next > buf.length) return { resume: at };
    at = next;
  }
}

/** See the module comment. `open` is the host's OpenExec (remote-exec.ts); `host` names it in errors. */
export class SshProcessReader {
  private live: Live | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private idle: NodeJS.Timeout | undefined;
  private readonly idleMs: number;
  private readonly timeoutMs: number;
  private readonly maxBytes: number;

  constructor(private readonly open: OpenExec, private readonly host: string, opts: SshProcessReaderOptions = {}) {
    this.idleMs = opts.idleMs ?? KEPT_CHANNEL_IDLE_MS;
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    this.maxBytes = opts.maxBytes ?? 64 * 1024 * 1024;
  }

  /** True while a reader channel is kept open (tests, doctor). */
  get isOpen(): boolean {
    return this.live !== null && !this.live.closed;
  }

  /**
   * The process table, one answer of the kept reader. Resolves null when the host has no `sh` or `awk` (exit
   * 126/127 before answering). Rejects `unavailable` (naming the host) when the answer timed out, was malformed
   * or too large, awk failed, or the reader ended mid-answer; with the pool's errors when no channel could be
   * opened (`unreachable`, `host_key_*`, …).
   */
  read(): Promise<ProcessTableText | null> {
    const run = this.queue.then(() => this.readOnce(true));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Closes the kept channel (the next call opens a new one). */
  close(): void {
    clearTimeout(this.idle);
    const live = this.live;
    this.live = null;
    if (live && !live.closed) live.ch.close();
  }

  private async readOnce(mayRetry: boolean): Promise<ProcessTableText | null> {
    clearTimeout(this.idle);
    const reused = this.live !== null && !this.live.closed;
    const live = reused ? this.live! : await this.start();
    const r = await this.ask(live);
    if (r.kind === "answer") {
      if (r.status !== 0) throw this.fail(`awk exited ${r.status}`);
      this.idle = setTimeout(() => { this.close(); }, this.idleMs);
      this.idle.unref();
      return tableOf(parseFrames(r.body, this.host));
    }
    if (this.live === live) this.close();
    if (r.kind === "failed") throw this.fail(r.why);
    if (r.got === 0 && reused && mayRetry) return this.readOnce(false);
    if (r.got === 0 && (r.code === 126 || r.code === 127)) return null;
    throw this.fail(`it ended before answering (exit ${r.code ?? r.signal ?? "unknown"})`);
  }

  private async start(): Promise<Live> {
    const ch = await this.open(PROCESS_READER_COMMAND);
    const live: Live = { ch, chunks: [], closed: false, code: null, signal: null, onChange: null };
    ch.on("data", (d: Buffer) => {
      live.chunks.push(d);
      live.onChange?.();
    });
    ch.stderr.resume();
    ch.on("exit", (code: number | null, sig?: string) => {
      if (typeof code === "number") live.code = code;
      else if (sig) live.signal = sig;
    });
    const gone = (): void => {
      live.closed = true;
      live.onChange?.();
    };
    ch.on("close", gone);
    ch.on("error", gone);
    this.live = live;
    return live;
  }

  /** Sends one request on `live` and collects its answer (or how the channel ended). */
  private ask(live: Live): Promise<Outcome> {
    return new Promise((resolve) => {
      let buf: Buffer = Buffer.alloc(0);
      let scanAt = 0;
      const finish = (o: Outcome): void => {
        clearTimeout(timer);
        live.onChange = null;
        resolve(o);
      };
      const timer = setTimeout(() => { finish({ kind: "failed", why: `it did not answer within ${this.timeoutMs} ms` }); }, this.timeoutMs);
      const check = (): void => {
        if (live.chunks.length > 0) {
          buf = buf.length === 0 && live.chunks.length === 1 ? live.chunks[0]! : Buffer.concat([buf, ...live.chunks]);
          live.chunks = [];
        }
        if (buf.length > this.maxBytes) {
          finish({ kind: "failed", why: `it printed more than ${this.maxBytes} bytes` });
          return;
        }
        let found;
        try {
          found = scanAnswer(buf, scanAt);
        } catch (e) {
          finish({ kind: "failed", why: `its output is ${(e as Error).message}` });
          return;
        }
        if ("status" in found) finish({ kind: "answer", body: buf.subarray(0, found.body), status: found.status });
        else if (live.closed) finish({ kind: "ended", got: buf.length, code: live.code, signal: live.signal });
        else scanAt = found.resume;
      };
      live.onChange = check;
      if (!live.closed) {
        try {
          live.ch.write("\n");
        } catch {
          live.closed = true;
        }
      }
      check();
    });
  }

  private fail(why: string): HostgateError {
    return new HostgateError("unavailable", `${this.host}: the process table reader failed: ${why}.`, {
      hint: "Retry (a new reader is started); if it persists, check the host's awk (mawk, gawk or BusyBox) and /proc.",
      details: { host: this.host },
    });
  }
}
