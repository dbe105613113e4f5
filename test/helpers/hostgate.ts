import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

/** Absolute path of the `hostgate` launcher in this checkout. */
export const HOSTGATE_BIN = resolve(import.meta.dirname, "../../bin/hostgate.js");

/** Protocol eras the tests exercise: a 2025-era client and a 2026-07-28 client. */
export type Era = "legacy" | "modern";

function newClient(era: Era): Client {
  return new Client({ name: "hostgate-e2e", version: "1.0.0" }, era === "modern" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {});
}

/** Spawns `hostgate mcp` and connects the SDK client over stdio. */
export async function connectStdio(era: Era, args: string[] = [], env: Record<string, string> = {}): Promise<Client> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [HOSTGATE_BIN, "mcp", ...args], env: { ...process.env, ...env } as Record<string, string>, stderr: "pipe" });
  const client = newClient(era);
  await client.connect(transport);
  return client;
}

/** A running `hostgate serve` child on a free port. */
export interface ServeProcess {
  url: string;
  child: ChildProcess;
  stderr: () => string;
  stop: () => Promise<void>;
}

/** Starts `hostgate serve --port 0` and resolves once it prints the URL it listens on. */
export function startServe(args: string[] = [], env: Record<string, string> = {}): Promise<ServeProcess> {
  const child = spawn(process.execPath, [HOSTGATE_BIN, "serve", "--port", "0", ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let err = "";
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => { child.kill("SIGKILL"); reject(new Error(`serve did not start: ${err}`)); }, 20_000);
    child.stderr.on("data", (c: Buffer) => {
      err += c.toString();
      const m = /listening on (http:\/\/\S+)/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolvePromise({
          url: m[1]!,
          child,
          stderr: () => err,
          stop: () => new Promise((done) => {
            if (child.exitCode !== null) { done(); return; }
            child.once("exit", () => { done(); });
            child.kill("SIGTERM");
          }),
        });
      }
    });
    child.once("exit", (code) => { clearTimeout(timer); reject(new Error(`serve exited ${code}: ${err}`)); });
  });
}

/** Connects the SDK client to a Streamable HTTP URL. */
export async function connectHttp(url: string, era: Era, headers: Record<string, string> = {}): Promise<Client> {
  const client = newClient(era);
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

/** Writes a YAML config into a fresh temp dir and returns its path. */
export function writeConfig(yaml: string): string {
  const dir = mkdtempSync(join(tmpdir(), "hostgate-cfg-"));
  const path = join(dir, "config.yaml");
  writeFileSync(path, yaml);
  return path;
}

/** Runs `hostgate <args>` to completion and returns exit code and output. */
export function runHostgate(args: string[], opts: { env?: Record<string, string | undefined>; input?: string; timeoutMs?: number; cwd?: string } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [HOSTGATE_BIN, ...args], { env: { ...process.env, ...opts.env }, stdio: ["pipe", "pipe", "pipe"], ...(opts.cwd ? { cwd: opts.cwd } : {}) });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => { stdout += c.toString(); });
    child.stderr.on("data", (c: Buffer) => { stderr += c.toString(); });
    const timer = setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs ?? 20_000);
    child.on("exit", (code) => { clearTimeout(timer); done({ code, stdout, stderr }); });
    child.stdin.end(opts.input ?? "");
  });
}

/** POSIX shell quoting of one word, for the command line `script` runs. */
const shq = (w: string): string => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, "'\\''")}'`);

/**
 * Runs `hostgate <args>` under a pseudo-terminal (util-linux `script -qec`), as a human at a terminal would (what
 * `approve` and `skills grants add` require). The terminal merges stdout and stderr into `output`; `code` is the
 * command's exit code.
 */
export function runHostgateInPty(args: string[], opts: { env?: Record<string, string | undefined>; input?: string; timeoutMs?: number } = {}): Promise<{ code: number | null; output: string }> {
  return new Promise((done) => {
    const cmd = [process.execPath, HOSTGATE_BIN, ...args].map(shq).join(" ");
    const child = spawn("script", ["-qec", cmd, "/dev/null"], { env: { ...process.env, ...opts.env }, stdio: ["pipe", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (c: Buffer) => { output += c.toString(); });
    child.stderr.on("data", (c: Buffer) => { output += c.toString(); });
    const timer = setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs ?? 20_000);
    child.on("exit", (code) => { clearTimeout(timer); done({ code, output }); });
    if (opts.input !== undefined) child.stdin.write(opts.input);
  });
}
