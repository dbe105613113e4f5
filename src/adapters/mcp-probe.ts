import { spawn } from "node:child_process";

/** The result of starting an MCP server the way a client would and asking it for its tools. */
export type ProbeResult =
  | { ok: true; tools: number; server: string; ms: number }
  | { ok: false; reason: string; stderr: string };

const PROTOCOL = "2025-06-18";

/**
 * Spawns `command args` with exactly `env` (as a client that passes a trimmed environment would: no PATH
 * unless given), sends initialize, notifications/initialized and tools/list as JSON lines over stdio, and
 * stops the process. Variable references a client would expand (`${VAR}`, `${env:VAR}`, `{env:VAR}`,
 * `$VAR`) are dropped from env, since only the client can resolve them.
 */
export function probeStdio(command: string, args: string[], env: Record<string, string>, timeoutMs = 15_000): Promise<ProbeResult> {
  const started = Date.now();
  const cleanEnv = Object.fromEntries(Object.entries(env).filter(([, v]) => !/^\$\{?|^\{env:/.test(v)));
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(command, args, { env: cleanEnv, stdio: ["pipe", "pipe", "pipe"] });
    } catch (err) {
      resolve({ ok: false, reason: (err as Error).message, stderr: "" });
      return;
    }
    let stdout = "";
    let stderr = "";
    let server = "";
    let settled = false;
    const finish = (r: ProbeResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.stdin.end();
      child.kill("SIGTERM");
      resolve(r);
    };
    const timer = setTimeout(() => { finish({ ok: false, reason: `no answer to tools/list within ${timeoutMs / 1000} s`, stderr }); }, timeoutMs);
    child.on("error", (err) => { finish({ ok: false, reason: err.message, stderr }); });
    child.on("exit", (code, sig) => { finish({ ok: false, reason: `exited (${code ?? sig}) before answering tools/list`, stderr }); });
    child.stderr.on("data", (c: Buffer) => { stderr = (stderr + c.toString()).slice(-4000); });
    child.stdout.on("data", (c: Buffer) => {
      stdout += c.toString();
      let nl;
      while ((nl = stdout.indexOf("\n")) >= 0) {
        const line = stdout.slice(0, nl);
        stdout = stdout.slice(nl + 1);
        let msg: { id?: number; result?: { serverInfo?: { name?: string; version?: string }; tools?: unknown[] }; error?: { message?: string } };
        try { msg = JSON.parse(line) as typeof msg; } catch { finish({ ok: false, reason: `wrote something that is not JSON-RPC on stdout: ${line.slice(0, 80)}`, stderr }); return; }
        if (msg.error) { finish({ ok: false, reason: `error: ${msg.error.message ?? "?"}`, stderr }); return; }
        if (msg.id === 1) {
          server = `${msg.result?.serverInfo?.name ?? "?"} ${msg.result?.serverInfo?.version ?? ""}`.trim();
          child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
          child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" })}\n`);
        } else if (msg.id === 2) {
          finish({ ok: true, tools: msg.result?.tools?.length ?? 0, server, ms: Date.now() - started });
        }
      }
    });
    child.stdin.on("error", () => undefined);
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: "hostgate-doctor", version: "1" } } })}\n`);
  });
}

/** POSTs initialize to a Streamable HTTP endpoint and reports whether an MCP server answers. */
export async function probeHttp(url: string, headers: Record<string, string>, timeoutMs = 5000): Promise<ProbeResult> {
  const started = Date.now();
  try {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: "hostgate-doctor", version: "1" } } }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const body = await res.text();
    if (!res.ok) return { ok: false, reason: `HTTP ${res.status}${res.status === 401 ? " (token missing or wrong)" : ""}`, stderr: body.slice(0, 300) };
    const m = /"serverInfo":\{"name":"([^"]*)","version":"([^"]*)"/.exec(body);
    return { ok: true, tools: -1, server: m ? `${m[1]} ${m[2]}` : "?", ms: Date.now() - started };
  } catch (err) {
    return { ok: false, reason: (err as Error).message, stderr: "" };
  }
}
