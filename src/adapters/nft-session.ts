import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import type { ExecResult } from "../core/exec.ts";

/** What {@link NftSession.list} needs: the nft binary to keep running and the environment it gets. */
export interface NftSessionOptions {
  /** Absolute path of nft (the probe's `which("nft")`), or an argv prefix that ends running `nft` (tests: `ip netns exec NS nft`). */
  argv: readonly string[];
  env: Record<string, string>;
}

/** One nft `list` command's words: `list ruleset`, `list table inet hostgate`… (identifiers only: no `;`, quotes or newlines). */
const WORD = /^[A-Za-z0-9_.:/-]+$/;

interface Pending {
  resolve(r: ExecResult): void;
  command: string;
  /** Sent again once already: a co-process that dies on a resend is an answer (its error). */
  resent: boolean;
  started: number;
  maxBytes: number;
  timer: NodeJS.Timeout;
}

/**
 * A kept `nft -j -i` co-process (issue 24: GetFirewallRuleset ≤ 20 ms p50). Spawning nft costs ≈ 20 ms here
 * (exec, dynamic loading, page faults) plus the fork of a large Node process; one kept process answers a `list`
 * command in well under a millisecond. Never stale: every command is sent to nft, which re-reads the kernel's
 * ruleset whenever its generation id changed (nftables' cache rule), and nothing is cached here.
 *
 * Framing (nft ≥ 0.9.x interactive mode with `-j`, checked on 1.0.6): each command's answer is one JSON document on
 * one stdout line; a failed command prints `Error: …` (and the command and a caret line) on stderr and nothing on
 * stdout. A failure, a timeout or an answer past `maxOutputBytes` kills the co-process (late stderr lines never
 * reach the next command's answer); the next command starts a new one. A co-process that died (killed, crashed)
 * is replaced, and a command written to it just before its death is sent once more to the new one. Commands
 * run one at a time, in call order. The co-process holds no reference on the event loop while idle, and ends when
 * its stdin closes: on {@link close}, or when this process dies.
 */
export class NftSession {
  private child: ChildProcessWithoutNullStreams | null = null;
  private pending: Pending | null = null;
  private out: Buffer[] = [];
  private outBytes = 0;
  private err = "";
  private queue: Promise<unknown> = Promise.resolve();
  /** Co-processes started (tests: a restart after a failure or a death is visible). */
  spawned = 0;

  constructor(private readonly opts: NftSessionOptions) {}

  /**
   * Runs `nft -j <words>` in the co-process and answers as HostProbe.run would for that argv: exit 0 with the JSON
   * line (and its newline) on stdout, or a non-zero exit with nft's stderr (exit 127 and the spawn error when nft
   * cannot start), `timed_out` after `timeoutMs`, `truncated` past `maxOutputBytes`. Throws for words that are not
   * a `list` command.
   */
  list(words: readonly string[], opts: { timeoutMs: number; maxOutputBytes: number }): Promise<ExecResult> {
    if (words[0] !== "list" || words.length < 2 || !words.every((w) => WORD.test(w))) throw new Error(`NftSession.list takes a list command of plain words, not ${JSON.stringify(words)}`);
    const run = this.queue.then(() => this.send(words.join(" "), opts));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Ends the co-process (its stdin closes; SIGKILL if it is still there 1 s later). Idempotent. */
  close(): void {
    const c = this.child;
    if (!c) return;
    this.child = null;
    c.stdin.end();
    setTimeout(() => { if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL"); }, 1000).unref();
  }

  private send(command: string, opts: { timeoutMs: number; maxOutputBytes: number }): Promise<ExecResult> {
    return new Promise((resolve) => {
      const started = performance.now();
      const c = this.child ?? this.start();
      this.out = [];
      this.outBytes = 0;
      this.err = "";
      const timer = setTimeout(() => { this.finish({ exit_code: null, signal: "SIGKILL", timed_out: true }); }, opts.timeoutMs);
      this.pending = { resolve, command, resent: false, started, maxBytes: opts.maxOutputBytes, timer };
      this.hold(true);
      c.stdin.write(`${command}\n`);
    });
  }

  private start(): ChildProcessWithoutNullStreams {
    const [file, ...prefix] = this.opts.argv;
    const c = spawn(file!, [...prefix, "-j", "-i"], { stdio: ["pipe", "pipe", "pipe"], env: this.opts.env });
    this.spawned++;
    this.child = c;
    c.stderr.setEncoding("utf8");
    c.stdout.on("data", (chunk: Buffer) => { if (this.child === c) this.onStdout(chunk); });
    c.stderr.on("data", (chunk: string) => { if (this.child === c) this.onStderr(chunk); });
    c.stdin.on("error", () => undefined); // EPIPE when nft died: the exit handler answers
    c.on("error", (e) => {
      if (this.child !== c) return;
      this.child = null;
      this.finish({ exit_code: 127, signal: null, stderr: e.message });
    });
    c.on("exit", (code, signal) => {
      if (this.child !== c) return;
      this.child = null;
      // Died while idle (its exit seen only after the next command was written to it): that command goes to a new
      // co-process, once. A list command changes nothing, so sending it again is harmless.
      const p = this.pending;
      if (p && !p.resent) {
        p.resent = true;
        this.out = [];
        this.outBytes = 0;
        this.err = "";
        this.start().stdin.write(`${p.command}\n`);
        return;
      }
      this.finish({ exit_code: code ?? null, signal, stderr: `${this.err}nft exited (${code ?? signal}) before answering` });
    });
    return c;
  }

  private onStdout(chunk: Buffer): void {
    const p = this.pending;
    if (!p) return;
    const nl = chunk.indexOf(0x0a);
    this.out.push(nl >= 0 ? chunk.subarray(0, nl) : chunk);
    this.outBytes += nl >= 0 ? nl : chunk.length;
    if (this.outBytes > p.maxBytes) {
      this.finish({ exit_code: 0, signal: null, stdout: Buffer.concat(this.out).subarray(0, p.maxBytes).toString("utf8"), truncated: true });
    } else if (nl >= 0) {
      // A readline build of nft may prefix a prompt: the document starts at its first brace.
      const line = Buffer.concat(this.out).toString("utf8");
      const brace = line.indexOf("{");
      this.finish({ exit_code: 0, signal: null, stdout: `${brace > 0 ? line.slice(brace) : line}\n` }, false);
    }
  }

  private onStderr(chunk: string): void {
    if (!this.pending) return;
    this.err += chunk;
    if (/(^|\n)[^\n]*Error:[^\n]*\n/.test(this.err)) this.finish({ exit_code: 1, signal: null, stderr: this.err });
  }

  /** Answers the pending command; `kill` (default) ends the co-process so nothing of this answer reaches the next. */
  private finish(r: Partial<ExecResult> & Pick<ExecResult, "exit_code" | "signal">, kill = true): void {
    const p = this.pending;
    if (!p) return;
    this.pending = null;
    clearTimeout(p.timer);
    if (kill && this.child) {
      const c = this.child;
      this.child = null;
      c.kill("SIGKILL");
    }
    this.hold(false);
    p.resolve({
      command: `nft -j ${p.command}`, argv: ["nft", "-j", ...p.command.split(" ")], stdout: "", stderr: "", timed_out: false, truncated: false,
      duration_ms: Math.round((performance.now() - p.started) * 1000) / 1000, ...r,
    });
  }

  /** While a command is pending the co-process keeps the event loop alive; idle, it does not. */
  private hold(on: boolean): void {
    const c = this.child;
    if (!c) return;
    for (const h of [c, c.stdin, c.stdout, c.stderr] as { ref(): void; unref(): void }[]) {
      if (on) h.ref();
      else h.unref();
    }
  }
}
