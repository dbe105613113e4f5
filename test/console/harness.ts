/**
 * A composed daemon (in-process, real SQLite state and audit chain in a temp directory, mock systemd, an
 * injected clock) with its approval console on a free loopback port, for the console tests and the bench.
 * Hermetic: its own state directory, no config file read, no other daemon joined.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigSchema } from "../../src/config/schema.ts";
import { composeDaemon, type ComposedDaemon } from "../../src/daemon/compose.ts";
import type { PasskeyBackend } from "../../src/daemon/console/passkey-backend.ts";
import type { PlanResult } from "../../src/ipc/protocol.ts";
import type { Action } from "../../src/core/catalogue/action.ts";

/** A test console: the daemon, its origin, a login link, a clock to move, and cleanup. */
export interface ConsoleRig {
  d: ComposedDaemon;
  origin: string;
  port: number;
  work: string;
  clock: { now: () => number; advance(ms: number): void };
  link(purpose?: "login" | "enroll"): Promise<string>;
  /** Plans WriteFile steps of `contents` under a fresh directory as one plan. */
  planWrites(contents: string[]): Promise<PlanResult>;
  close(): Promise<void>;
}

/**
 * Starts a daemon whose console is on (port 0), with extra config and `passkeys`: "daemon" for the daemon's own
 * backend (src/app/passkeys.ts, as in production), a backend object, or none (the default: approval answers 503).
 * `catalogue`: the daemon's actions (default: the built-in catalogue; tests add fixtures such as test/support/set-marker.ts).
 */
export async function startRig(opts: { passkeys?: PasskeyBackend | null | "daemon"; config?: Record<string, unknown>; catalogue?: readonly Action[] } = {}): Promise<ConsoleRig> {
  const work = mkdtempSync(join(tmpdir(), `hg-console-${process.pid}-`));
  let now = Date.parse("2026-12-01T10:00:00Z");
  const clock = { now: () => now, advance: (ms: number) => { now += ms; } };
  const config = ConfigSchema.parse({ backend: { type: "mock" }, console: { enabled: true, port: 0 }, ...opts.config });
  process.env.HOSTGATE_STATE_DIR = join(work, "state");
  const d = await composeDaemon(config, { mode: "embedded", clock, announce: () => undefined, passkeys: opts.passkeys === "daemon" ? undefined : opts.passkeys ?? null, ...(opts.catalogue ? { catalogue: opts.catalogue } : {}) });
  delete process.env.HOSTGATE_STATE_DIR;
  const origin = d.service.deps.console?.origin();
  if (!origin) throw new Error("console did not start");
  let n = 0;
  return {
    d, origin, port: Number(new URL(origin).port), work, clock,
    link: async (purpose = "login") => {
      const r = await d.service.admin("human").call("console_link", { purpose });
      if (!r.ok) throw new Error(r.error.message);
      return r.value.url;
    },
    planWrites: async (contents) => {
      const dir = mkdtempSync(join(work, `p${++n}-`));
      const p = await d.service.agent("model").call("plan", { steps: contents.map((c, i) => ({ action: "WriteFile", params: { path: join(dir, `f${i + 1}.conf`), content: c } })) });
      if (!p.ok) throw new Error(p.error.message);
      return p.value;
    },
    close: async () => { await d.close(); rmSync(work, { recursive: true, force: true }); },
  };
}

/** One raw HTTP exchange (node:http, so Host and Origin can be set to anything). */
export function raw(port: number, method: string, path: string, opts: { headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, method, path, headers: { host: `localhost:${port}`, ...opts.headers } }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => { body += c; });
      res.on("end", () => { resolve({ status: res.statusCode ?? 0, headers: res.headers, body }); });
    });
    req.on("error", reject);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

/** Logs in with a fresh link over raw HTTP; returns the cookie header value and the session's CSRF token (read from a plan page later). */
export async function login(rig: ConsoleRig): Promise<string> {
  const url = await rig.link("login");
  const token = url.split("#")[1]!;
  const r = await raw(rig.port, "POST", "/login", { headers: { origin: rig.origin, "content-type": "application/json" }, body: JSON.stringify({ token }) });
  if (r.status !== 200) throw new Error(`login failed: ${r.status} ${r.body}`);
  const set = ([] as string[]).concat(r.headers["set-cookie"] ?? []);
  return set[0]!.split(";")[0]!;
}

/** The CSRF token in a page's forms. */
export const csrfOf = (html: string): string => /name="csrf" value="([^"]+)"/.exec(html)![1]!;
