import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { Duplex } from "node:stream";

export { parseVsockUri } from "./vsock-uri.ts";

/**
 * The client side of `vsock://CID:PORT` (a daemon in a VM, reached from the hypervisor host). Node.js has no
 * AF_VSOCK sockets, so `socat` (a child process) holds the vsock connection and relays it over its stdio;
 * the daemon's side is a systemd socket unit with systemd-socket-proxyd (`hostgate daemon install --vsock`).
 */

/** socat's address for a vsock connection. */
export function vsockAddress(cid: number, port: number): string {
  return `VSOCK-CONNECT:${cid}:${port}`;
}

/**
 * Starts `socat -d -d - <address>` and resolves with a stream connected to it once socat reports the
 * connection up (its "starting data transfer loop" notice); rejects with socat's own error otherwise
 * (not installed, connection refused or timed out). Destroying the stream stops socat.
 */
export function connectThroughSocat(address: string, socat = process.env.HOSTGATE_SOCAT || "socat", timeoutMs = 10_000): Promise<Duplex> {
  return new Promise((resolve, reject) => {
    const child = spawn(socat, ["-d", "-d", "-", address], { stdio: ["pipe", "pipe", "pipe"] });
    let log = "";
    let up = false;
    const fail = (why: string): void => {
      if (up) return;
      up = true;
      clearTimeout(timer);
      child.kill("SIGKILL");
      reject(new Error(why));
    };
    const timer = setTimeout(() => { fail(`socat did not connect to ${address} within ${timeoutMs / 1000} s`); }, timeoutMs);
    child.once("error", (err) => {
      fail((err as NodeJS.ErrnoException).code === "ENOENT" ? `vsock:// needs socat (Node.js has no AF_VSOCK sockets): apt-get install socat` : err.message);
    });
    // "close", not "exit": by then socat's stderr has been read to the end, so its error line is in `log`.
    child.once("close", (code) => {
      const last = log.trim().split("\n").filter((l) => / E /.test(l)).pop() ?? log.trim().split("\n").pop() ?? "";
      fail(`socat ${address} exited (${code}): ${last.replace(/^.*socat\[\d+\] E /, "")}`);
    });
    child.stderr.on("data", (c: Buffer) => {
      log = (log + c.toString()).slice(-4000);
      if (!up && log.includes("starting data transfer loop")) {
        up = true;
        clearTimeout(timer);
        const stream = new SocatStream(child);
        child.once("exit", () => { stream.destroy(); });
        resolve(stream);
      }
    });
  });
}

/** A stream over socat's stdio: reads its stdout, writes its stdin; destroying it stops socat. */
class SocatStream extends Duplex {
  constructor(private readonly child: ChildProcessWithoutNullStreams) {
    super();
    child.stdout.on("data", (chunk: Buffer) => { if (!this.push(chunk)) child.stdout.pause(); });
    child.stdout.on("end", () => { this.push(null); });
    child.stdin.on("error", () => undefined);
  }

  override _read(): void {
    this.child.stdout.resume();
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, done: (err?: Error | null) => void): void {
    this.child.stdin.write(chunk, done);
  }

  override _final(done: (err?: Error | null) => void): void {
    this.child.stdin.end(done);
  }

  override _destroy(err: Error | null, done: (err?: Error | null) => void): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill("SIGTERM");
    done(err);
  }
}
