import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HOSTGATE_BIN } from "../../test/helpers/hostgate.ts";

/** One JSON-RPC answer as the benches read it. */
export interface RpcAnswer {
  result?: { isError?: boolean; structuredContent?: Record<string, unknown> & { code?: string }; content?: { text: string }[] };
  error?: { message: string };
}

/** A running `hostgate mcp` over stdio and the client loop that talks to it. */
export interface McpStdioClient {
  /** The server's pid (for /proc/<pid>/stat CPU figures). */
  pid: number;
  /** `dist` when the build is there, else `tsx` (the sources): which code was measured. */
  build: "dist" | "tsx";
  /** Sends one request and resolves with its answer; rejects if the server exits first. */
  call(method: string, params: unknown): Promise<RpcAnswer>;
  /** Ends stdin (the server exits and writes any --cpu-prof profile), SIGTERM after 3 s; removes its directories. */
  close(): Promise<void>;
}

/**
 * Starts `node [nodeArgs] bin/hostgate.js mcp` as a client's entry does (the launcher sets its own V8 flags), with
 * its own state and runtime directories and no NODE_EXTRA_CA_CERTS or HOSTGATE_SOCKET (so it never joins a daemon
 * of this machine), and initializes it (protocol 2025-06-18). Shared by bench/catalogue-reads.ts and
 * bench/support/list-processes-mcp.ts.
 */
export async function startMcpStdio(nodeArgs: string[] = []): Promise<McpStdioClient> {
  const dir = mkdtempSync(join(tmpdir(), "hg-bench-mcp-"));
  const env: Record<string, string> = { ...process.env, HOSTGATE_STATE_DIR: join(dir, "state"), HOSTGATE_RUNTIME_DIR: join(dir, "run") };
  delete env.NODE_EXTRA_CA_CERTS;
  delete env.HOSTGATE_SOCKET;
  const child = spawn(process.execPath, [...nodeArgs, HOSTGATE_BIN, "mcp"], { env, stdio: ["pipe", "pipe", "ignore"] });
  let buf = "";
  let next = 1;
  const waiting = new Map<number, (m: RpcAnswer) => void>();
  child.stdout.on("data", (c: Buffer) => {
    buf += c.toString();
    let nl;
    while ((nl = buf.indexOf("\n")) >= 0) {
      const m = JSON.parse(buf.slice(0, nl)) as RpcAnswer & { id?: number };
      buf = buf.slice(nl + 1);
      if (m.id !== undefined) waiting.get(m.id)?.(m);
    }
  });
  let exited: Error | null = null;
  const failures = new Set<(e: Error) => void>();
  child.on("exit", (code, signal) => {
    exited = new Error(`hostgate mcp exited (${code ?? signal}) during the benchmark`);
    for (const f of failures) f(exited);
  });
  const call = (method: string, params: unknown): Promise<RpcAnswer> => {
    const id = next++;
    return new Promise((resolve, reject) => {
      if (exited) { reject(exited); return; }
      failures.add(reject);
      waiting.set(id, (m) => { failures.delete(reject); waiting.delete(id); resolve(m); });
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    });
  };
  const close = async (): Promise<void> => {
    if (!exited) {
      const gone = new Promise((r) => child.once("exit", r));
      child.stdin.end();
      const timer = setTimeout(() => child.kill("SIGTERM"), 3000);
      await gone;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await call("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } });
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
  } catch (e) {
    await close();
    throw e;
  }
  return { pid: child.pid!, build: existsSync(join(HOSTGATE_BIN, "../../dist/hostgate.js")) ? "dist" : "tsx", call, close };
}

/** The p-th quantile (0..1) of `xs`, nearest rank. */
export const pct = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
/** Rounded to 2 decimals. */
export const r2 = (x: number): number => Math.round(x * 100) / 100;
