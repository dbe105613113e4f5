/**
 * Issue 23 through real processes: a `hostgate daemon` with `console.enabled` (port 0) in its own temp state,
 * `hostgate console` / `hostgate console enroll` on its admin socket (no DISPLAY: the link is printed, no browser
 * is started, nothing fails), and a `hostgate mcp` front whose MCP client declares URL-mode elicitation: the
 * plan's console URL is offered through it, and the client's "accept" approves nothing.
 */
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawIpc, startDaemon, type DaemonProcess } from "../helpers/daemon.ts";
import { HOSTGATE_BIN, runHostgate, startServe } from "../helpers/hostgate.ts";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

let d: DaemonProcess;
beforeAll(async () => { d = await startDaemon("backend:\n  type: mock\napproval:\n  same_user: allow\nconsole:\n  enabled: true\n  port: 0\n"); }, 30_000);
afterAll(async () => { await d.stop(); rmSync(d.dir, { recursive: true, force: true }); });

const noDisplay = { DISPLAY: "", WAYLAND_DISPLAY: "" };

describe("hostgate console (admin socket)", () => {
  it("prints a one-time login link on localhost and opens nothing without a display", async () => {
    const r = await runHostgate(["console", "--socket", d.adminSocket], { env: { ...d.env, ...noDisplay } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Log in to the approval console with this one-time link .*\n\n {2}http:\/\/localhost:\d+\/login#hgl_[A-Za-z0-9_-]{43}\n/);
    expect(r.stdout).not.toContain("browser");
  });

  it("console enroll prints a one-time enrollment link", async () => {
    const r = await runHostgate(["console", "enroll", "--socket", d.adminSocket, "--no-open"], { env: { ...d.env, ...noDisplay } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Enroll a passkey .*\n\n {2}http:\/\/localhost:\d+\/enroll#hgl_[A-Za-z0-9_-]{43}\n/);
  });

  it("T23-open-argv: opens the browser through a 0600 redirect page; no link secret reaches the opener's argv", async () => {
    // A fake xdg-open on PATH records its argv, as list_processes would have shown it to a model.
    const bin = mkdtempSync(join(d.dir, "bin-"));
    const log = join(bin, "argv.log");
    writeFileSync(join(bin, "xdg-open"), `#!/bin/sh\nprintf '%s\\n' "$0" "$@" > '${log}.tmp' && mv '${log}.tmp' '${log}'\n`, { mode: 0o755 });
    const runtime = mkdtempSync(join(d.dir, "runtime-"));
    chmodSync(runtime, 0o700);
    for (const sub of [[], ["enroll"]]) {
      rmSync(log, { force: true });
      const r = await runHostgate(["console", ...sub, "--socket", d.adminSocket], { env: { ...d.env, DISPLAY: ":99", WAYLAND_DISPLAY: "", XDG_RUNTIME_DIR: runtime, PATH: `${bin}:${process.env.PATH ?? ""}` } });
      expect(r.code, r.stderr).toBe(0);
      const url = /(http:\/\/localhost:\d+\/(?:login|enroll)#(hgl_[A-Za-z0-9_-]{43}))\n/.exec(r.stdout)!;
      expect(url, r.stdout).not.toBeNull();
      expect(r.stdout).toContain("Asked xdg-open to open it in your browser");
      await expect.poll(() => existsSync(log), { timeout: 10_000 }).toBe(true);
      const argv = readFileSync(log, "utf8").trimEnd().split("\n");
      expect(argv).toHaveLength(2);
      expect(argv[0]).toBe(join(bin, "xdg-open"));
      expect(argv[1]).toMatch(new RegExp(`^file://${runtime}/hostgate-console-[^/]+/open\\.html$`));
      const text = readFileSync(log, "utf8");
      expect(text).not.toContain(url[2]!);
      expect(text).not.toContain("hgl_");
      expect(text).not.toContain("#");
      const page = fileURLToPath(argv[1]!);
      expect(statSync(page).mode & 0o777).toBe(0o600);
      expect(statSync(join(page, "..")).mode & 0o777).toBe(0o700);
      const html = readFileSync(page, "utf8");
      expect(html).toContain(`<meta http-equiv="refresh" content="0;url=${url[1]!}">`);
      expect(html).toContain(`<a href="${url[1]!}">`);
    }
  });

  it("the agent socket cannot mint a link", async () => {
    expect(await rawIpc(d.agentSocket, "console_link", { purpose: "login" })).toMatchObject({ ok: false, error: { code: "forbidden_method" } });
  });
});

describe("URL-mode elicitation", () => {
  it("offers the plan's console URL to a client that declared elicitation.url; its accept approves nothing", async () => {
    const offered: Record<string, unknown>[] = [];
    const client = new Client({ name: "elicit-e2e", version: "1.0.0" }, { capabilities: { elicitation: { url: {} } } });
    client.setRequestHandler("elicitation/create", (req) => {
      offered.push(req.params);
      return { action: "accept" };
    });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [HOSTGATE_BIN, "mcp", "--config", d.configPath], env: { ...process.env, ...d.env, HOSTGATE_SOCKET: d.agentSocket }, stderr: "pipe" }));
    try {
      const r = await client.callTool({ name: "plan", arguments: { steps: [{ action: "WriteFile", params: { path: join(d.dir, "elicit.conf"), content: "x\n" } }] } });
      const plan = r.structuredContent as { plan_id: string; steps: { transaction_id: string; console_url?: string }[] };
      expect(plan.steps[0]!.console_url).toMatch(new RegExp(`^http://localhost:\\d+/plans/${plan.steps[0]!.transaction_id}$`));
      await expect.poll(() => offered.length, { timeout: 10_000 }).toBe(1);
      expect(offered[0]).toMatchObject({ mode: "url", url: plan.steps[0]!.console_url });
      expect(String(offered[0]!.message)).toContain("does not approve anything");
      const shown = await rawIpc(d.adminSocket, "show", { transaction_id: plan.plan_id }) as { result: { value: { steps: { state: string }[] } } };
      expect(shown.result.value.steps.map((s) => s.state)).toEqual(["planned"]);
    } finally {
      await client.close();
    }
  }, 60_000);
});

describe("URL-mode elicitation over the Streamable HTTP front (issue 23: offered over stdio only)", () => {
  it("T23-elicit-http: the stateless HTTP front cannot offer it (no per-client state, JSON answers); the plan result carries the console link instead", async () => {
    // Why: a 2025-era POST gets a fresh server that never saw this client's initialize, so it cannot know the client
    // declared elicitation.url, and it answers in JSON-response mode, with no stream for a server→client request.
    // The 2026-07-28 era has no server-initiated requests at all. Offering it would take per-client sessions, which
    // the front keeps out on purpose (clients never share state). The link reaches the model in the result instead.
    const serve = await startServe(["--config", d.configPath], { ...d.env, HOSTGATE_SOCKET: d.agentSocket });
    const offered: unknown[] = [];
    const client = new Client({ name: "elicit-http-e2e", version: "1.0.0" }, { capabilities: { elicitation: { url: {} } } });
    client.setRequestHandler("elicitation/create", (req) => {
      offered.push(req.params);
      return { action: "accept" };
    });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(serve.url)));
      const r = await client.callTool({ name: "plan", arguments: { steps: [{ action: "WriteFile", params: { path: join(d.dir, "elicit-http.conf"), content: "x\n" } }] } });
      const plan = r.structuredContent as { plan_id: string; next: string; steps: { console_url?: string }[] };
      const url = plan.steps[0]!.console_url!;
      expect(url).toMatch(/^http:\/\/localhost:\d+\/plans\//);
      expect(plan.next).toContain(url);
      await new Promise((done) => setTimeout(done, 500));
      expect(offered).toEqual([]);
    } finally {
      await client.close();
      await serve.stop();
    }
  }, 60_000);
});
