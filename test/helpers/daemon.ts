import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createConnection } from "node:net";
import { PROTOCOL_VERSION } from "../../src/ipc/protocol.ts";
import { HOSTGATE_BIN } from "./hostgate.ts";

/** A `hostgate daemon` child with its own state and runtime directories. */
export interface DaemonProcess {
  child: ChildProcess;
  dir: string;
  env: Record<string, string>;
  agentSocket: string;
  adminSocket: string;
  configPath: string;
  /** Addresses the daemon printed as ready (includes tcp:// when --listen was given). */
  addresses: string[];
  stderr: () => string;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * Starts `hostgate daemon` and waits for "daemon ready". Reuse `dir` to restart on the same state. `bin`: the
 * launcher or bundle to run (default this checkout's launcher; a test may run another build's bundle). `wrap`:
 * a command put before the daemon's argv that ends by exec'ing it (a private mount namespace).
 */
export function startDaemon(configYaml: string, opts: { dir?: string; args?: string[]; env?: Record<string, string>; bin?: string; wrap?: string[] } = {}): Promise<DaemonProcess> {
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), "hg-daemon-"));
  const configPath = join(dir, "config.yaml");
  writeFileSync(configPath, configYaml);
  // HOSTGATE_CONFIG_DIR: the test run's scratch (vitest.config.ts), else this daemon's own: a bench that starts a
  // daemon directly must not pin audit keys into /etc/hostgate (it did: the CI decoy then skips itself).
  const env = { HOSTGATE_STATE_DIR: join(dir, "state"), HOSTGATE_RUNTIME_DIR: join(dir, "run"), HOSTGATE_CONFIG_DIR: process.env.HOSTGATE_CONFIG_DIR || join(dir, "etc"), ...opts.env };
  // `wrap`: a command that execs the daemon's argv last (e.g. unshare + mounts), so `stop` still signals the daemon.
  const argv = [process.execPath, opts.bin ?? HOSTGATE_BIN, "daemon", "--config", configPath, ...(opts.args ?? [])];
  const [cmd, ...args] = [...(opts.wrap ?? []), ...argv];
  const child = spawn(cmd!, args, { env: { ...process.env, ...env }, stdio: ["ignore", "ignore", "pipe"] });
  let err = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { child.kill("SIGKILL"); reject(new Error(`daemon did not start: ${err}`)); }, 20_000);
    child.stderr.on("data", (c: Buffer) => {
      err += c.toString();
      const m = /daemon ready: state \S+; (.*)$/m.exec(err);
      if (!m) return;
      clearTimeout(timer);
      resolve({
        child, dir, env, configPath,
        agentSocket: join(dir, "run", "agent.sock"),
        adminSocket: join(dir, "run", "admin.sock"),
        addresses: m[1]!.split(", "),
        stderr: () => err,
        stop: (signal: NodeJS.Signals = "SIGTERM") => new Promise<void>((done) => {
          if (child.exitCode !== null || child.signalCode !== null) { done(); return; }
          child.once("exit", () => { done(); });
          child.kill(signal);
        }),
      });
    });
    child.once("exit", (code) => { clearTimeout(timer); reject(new Error(`daemon exited ${code}: ${err}`)); });
  });
}

/** One raw daemon-protocol call on a socket path or tcp://host:port (for refusal tests). */
export function rawIpc(address: string, method: string, params: unknown, token?: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const tcp = /^tcp:\/\/([^:]+):(\d+)$/.exec(address);
    const s = tcp ? createConnection(Number(tcp[2]), tcp[1]) : createConnection(address);
    let buf = "";
    s.on("data", (c: Buffer) => {
      buf += c.toString();
      const nl = buf.indexOf("\n");
      if (nl >= 0) { s.destroy(); resolve(JSON.parse(buf.slice(0, nl)) as Record<string, unknown>); }
    });
    s.on("error", reject);
    s.write(`${JSON.stringify({ v: PROTOCOL_VERSION, id: 1, method, params, ...(token === undefined ? {} : { token }) })}\n`);
  });
}

/**
 * Runs `hostgate approve <id>` under a pseudo-terminal (util-linux `script`), answers its prompt with
 * `answer` (default: the word the prompt asks for), and returns the receipt it printed (or null) and the whole output.
 */
export function approveViaPty(adminSocket: string | null, txid: string, answer?: string, env: Record<string, string> = {}): Promise<{ receipt: string | null; output: string; code: number | null }> {
  return new Promise((resolve) => {
    // adminSocket null: no --socket, so approve finds the daemon by its own rule (with `env`).
    const cmd = `${process.execPath} ${HOSTGATE_BIN} approve ${txid}${adminSocket === null ? "" : ` --socket ${adminSocket}`}`;
    const child = spawn("script", ["-qec", cmd, "/dev/null"], { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, ...env } });
    let out = "";
    let answered = false;
    const onData = (c: Buffer): void => {
      out += c.toString();
      const asked = /Type "([^"]+)" to approve/.exec(out);
      if (!answered && asked) {
        answered = true;
        child.stdin.write(`${answer ?? asked[1]!}\n`);
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ receipt: /Approval receipt: (hgr_[A-Za-z0-9_-]+)/.exec(out)?.[1] ?? null, output: out, code });
    });
  });
}
