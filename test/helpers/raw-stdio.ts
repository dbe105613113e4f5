import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { HOSTGATE_BIN } from "./hostgate.ts";

/** `hostgate mcp` driven line by line, for framing tests. Every stdout line is kept for inspection. */
export class RawStdio {
  readonly child: ChildProcessWithoutNullStreams;
  readonly lines: string[] = [];
  stderr = "";
  /** Set once the process has exited and its stdout and stderr are drained: no line can come after. */
  private closed = false;
  private waiters: (() => void)[] = [];
  private partial = "";

  /** `bin`: the launcher or bundle to run (default this checkout's launcher; a test may run another build's bundle). */
  constructor(args: string[] = [], env: Record<string, string> = {}, bin: string = HOSTGATE_BIN) {
    this.child = spawn(process.execPath, [bin, "mcp", ...args], { env: { ...process.env, ...env }, stdio: ["pipe", "pipe", "pipe"] });
    this.child.stdout.on("data", (c: Buffer) => {
      this.partial += c.toString();
      let nl;
      while ((nl = this.partial.indexOf("\n")) >= 0) {
        this.lines.push(this.partial.slice(0, nl));
        this.partial = this.partial.slice(nl + 1);
      }
      for (const w of this.waiters.splice(0)) w();
    });
    this.child.stderr.on("data", (c: Buffer) => { this.stderr += c.toString(); });
    this.child.on("close", () => { this.closed = true; for (const w of this.waiters.splice(0)) w(); });
  }

  send(line: string): void {
    this.child.stdin.write(`${line}\n`);
  }

  /** Waits until a stdout message satisfies `pred` and returns it parsed; rejects at the deadline, or at once when the process has gone and none did. */
  async waitFor(pred: (msg: Record<string, unknown>) => boolean, timeoutMs = 15_000): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      for (const l of this.lines) {
        try {
          const m = JSON.parse(l) as Record<string, unknown>;
          if (pred(m)) return m;
        } catch { /* non-JSON lines are checked by the tests themselves */ }
      }
      if (this.closed) throw new Error(`the process exited (code ${this.child.exitCode}, signal ${this.child.signalCode}); stdout:\n${this.lines.join("\n")}\nstderr:\n${this.stderr}`);
      if (Date.now() > deadline) throw new Error(`timed out; stdout so far:\n${this.lines.join("\n")}\nstderr:\n${this.stderr}`);
      await new Promise<void>((r) => { this.waiters.push(r); setTimeout(r, 200); });
    }
  }

  async initialize(): Promise<void> {
    this.send(JSON.stringify({ jsonrpc: "2.0", id: "init", method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } }));
    await this.waitFor((m) => m.id === "init");
    this.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
  }

  /** Closes stdin and resolves with the exit code and how long the process took to exit after it, in ms. */
  endInput(): Promise<{ code: number | null; ms: number }> {
    const start = Date.now();
    return new Promise((r) => {
      if (this.child.exitCode !== null || this.child.signalCode !== null) { r({ code: this.child.exitCode, ms: 0 }); return; }
      this.child.once("exit", (code) => { r({ code, ms: Date.now() - start }); });
      this.child.stdin.end();
    });
  }

  stop(): Promise<void> {
    return new Promise((r) => {
      if (this.child.exitCode !== null || this.child.signalCode !== null) { r(); return; }
      this.child.once("exit", () => { r(); });
      this.child.kill("SIGKILL");
    });
  }
}
