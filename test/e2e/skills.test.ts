import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawIpc, startDaemon, type DaemonProcess } from "../helpers/daemon.ts";
import { HOSTGATE_BIN, runHostgate, runHostgateInPty } from "../helpers/hostgate.ts";

/** `hostgate mcp` with its own home, state and runtime folders, over the SDK's stdio client. */
async function connect(home: string, args: string[]): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath, args: [HOSTGATE_BIN, "mcp", ...args], cwd: home,
    env: { ...process.env, HOME: home, XDG_STATE_HOME: join(home, "state"), XDG_RUNTIME_DIR: join(home, "run"), HOSTGATE_SOCKET: "" },
    stderr: "pipe",
  });
  let err = "";
  transport.stderr?.on("data", (c: Buffer) => { err += c.toString(); });
  const client = new Client({ name: "skills-e2e", version: "1.0.0" });
  await client.connect(transport);
  return { client, stderr: () => err };
}

type Result = { structuredContent?: Record<string, unknown>; isError?: boolean; _meta?: Record<string, unknown>; content: { text: string }[] };
const call = async (c: Client, name: string, args: Record<string, unknown>): Promise<Result> => (await c.callTool({ name, arguments: args })) as unknown as Result;

describe("skills over MCP (stdio, real binary, embedded daemon)", () => {
  let home: string;
  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), `skills-e2e-${process.pid}-`));
    mkdirSync(join(home, "run"), { mode: 0o700 });
  });
  afterAll(() => { rmSync(home, { recursive: true, force: true }); });

  it("without flags: read-only skills tools only, and the start notice says the gates are off", async () => {
    const { client, stderr } = await connect(home, []);
    try {
      const names = (await client.listTools()).tools.map((t) => t.name).filter((n) => n.startsWith("skills_"));
      expect(names.sort()).toEqual(["skills_diagnose", "skills_inspect", "skills_install_plan", "skills_read", "skills_resolve", "skills_route", "skills_search", "skills_sync_plan"]);
      expect(stderr()).toMatch(/hostgate \S+: serving \d+ tools over stdio from this user.s embedded daemon at \S+ (\(started on first use\) )?\(skills install off, skills exec off\)/);
      const r = await call(client, "skills_route", { intent: "certificate expired on the web server" });
      expect(r.structuredContent).toMatchObject({ kind: "skills.route", ok: true, data: { skill: "certificate-expiry" } });
      expect(r._meta?.["dev.hostgate/untrusted"]).toBe(true);
      const bad = await call(client, "skills_read", { ref: "disk-full", path: "../../etc/shadow" });
      expect(bad.isError).toBe(true);
      expect(bad._meta?.["dev.hostgate/error_code"]).toBe("invalid_params");
      // skill:// resources go through the same read path.
      const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
      expect(templates).toContain("skill://{name}/{+path}");
      const res = await client.readResource({ uri: "skill://disk-full/scripts/diagnose.sh" });
      expect((res.contents[0] as { text: string }).text).toMatch(/^#!\/bin\/bash/);
      await expect(client.readResource({ uri: "skill://disk-full/../../etc/passwd" })).rejects.toThrow(/-32602|traversal|invalid/i);
    } finally { await client.close(); }
  });

  it("T3-29 --allow-install: two stdio fronts on one embedded daemon; B cannot redeem A's token, nothing is installed; the token is single use", async () => {
    const a = await connect(home, ["--allow-install"]);
    const b = await connect(home, ["--allow-install"]);
    try {
      expect(a.stderr()).toMatch(/\(skills install on, skills exec off\)/);
      const args = { ref: "service-flapping", scope: "user", runtimes: ["claude"] };
      const plan = await call(a.client, "skills_install_plan", args);
      const token = (plan._meta?.["dev.hostgate/confirm"] as { token: string }).token;
      expect(plan.content.map((c) => c.text).join("\n")).toContain(token);
      // Another connection (same user, same daemon) cannot use it.
      const other = await call(b.client, "skills_install_apply", { ...args, confirm: token });
      expect(other.structuredContent).toMatchObject({ ok: false, error: { code: "confirm.other_session" } });
      expect(existsSync(join(home, ".claude/skills/service-flapping"))).toBe(false);
      // Presented once (by B), the token is spent: A cannot use it either, and still nothing is installed.
      expect((await call(a.client, "skills_install_apply", { ...args, confirm: token })).structuredContent).toMatchObject({ ok: false, error: { code: "confirm.used" } });
      expect(existsSync(join(home, ".claude/skills/service-flapping"))).toBe(false);
      const plan2 = await call(a.client, "skills_install_plan", args);
      const token2 = (plan2._meta?.["dev.hostgate/confirm"] as { token: string }).token;
      expect((await call(a.client, "skills_install_apply", args)).structuredContent).toMatchObject({ error: { code: "confirm.missing" } });
      const applied = await call(a.client, "skills_install_apply", { ...args, confirm: token2 });
      expect(applied.structuredContent).toMatchObject({ ok: true, data: { applied: true } });
      expect(existsSync(join(home, ".claude/skills/service-flapping/SKILL.md"))).toBe(true);
      expect((await call(a.client, "skills_install_apply", { ...args, confirm: token2 })).structuredContent).toMatchObject({ error: { code: "confirm.used" } });
    } finally { await a.client.close(); await b.client.close(); }
  });

  it("T22-skills-config: skills.allow_install / allow_exec in the config do what the flags do: tools/list, start notice, doctor", async () => {
    const cfg = join(home, "gates.yaml");
    writeFileSync(cfg, "skills:\n  allow_install: true\n  allow_exec: true\n");
    const { client, stderr } = await connect(home, ["-c", cfg]);
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(["skills_install_apply", "skills_sync_apply", "skills_execute"]));
      expect(stderr()).toMatch(/\(skills install on, skills exec on\)/);
    } finally { await client.close(); }
    // Without the config, the same front hides them and a call says how to turn the gate on.
    const bare = await connect(home, []);
    try {
      expect((await bare.client.listTools()).tools.map((t) => t.name)).not.toContain("skills_execute");
      await expect(call(bare.client, "skills_execute", { ref: "disk-full", entrypoint: "diagnose" })).rejects.toThrow(/it needs the skills exec gate\. To offer it, set skills\.allow_exec: true/);
    } finally { await bare.client.close(); }
    const env = { HOME: home, XDG_STATE_HOME: join(home, "state"), XDG_RUNTIME_DIR: join(home, "run"), HOSTGATE_SOCKET: "", XDG_CONFIG_HOME: join(home, "xdg") };
    const on = await runHostgate(["doctor", "-c", cfg], { env, cwd: home, timeoutMs: 60_000 });
    const gatedLine = (out: string): string => out.split("\n").find((l) => l.includes("gated tools")) ?? "";
    expect(gatedLine(on.stdout)).not.toBe("");
    expect(gatedLine(on.stdout)).not.toMatch(/skills_execute|skills_install_apply/);
    const off = await runHostgate(["doctor"], { env, cwd: home, timeoutMs: 60_000 });
    expect(off.stdout).toMatch(/gated tools[^\n]*skills_execute \(skills exec gate: not enabled/);
  });

  it("--allow-exec on the embedded daemon adds skills_execute", async () => {
    const { client, stderr } = await connect(home, ["--allow-exec"]);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain("skills_execute");
      expect(stderr()).toMatch(/\(skills install off, skills exec on\)/);
    } finally { await client.close(); }
  });
});

describe("a system daemon: gates from its config, grants over the admin socket, exec over the agent socket", () => {
  let daemon: DaemonProcess;
  beforeAll(async () => { daemon = await startDaemon("skills:\n  allow_install: true\n  allow_exec: true\n"); });
  afterAll(async () => { await daemon.stop(); rmSync(daemon.dir, { recursive: true, force: true }); });

  it("a flag the daemon cannot honour warns and adds nothing; a granted entrypoint runs in the daemon", async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [HOSTGATE_BIN, "mcp", "--allow-install", "--allow-exec"], env: { ...process.env, ...daemon.env, HOSTGATE_SOCKET: daemon.agentSocket }, stderr: "pipe" });
    let err = "";
    transport.stderr?.on("data", (c: Buffer) => { err += c.toString(); });
    const client = new Client({ name: "skills-e2e", version: "1.0.0" });
    await client.connect(transport);
    try {
      expect(err).toMatch(/--allow-install has no effect: no install folder/);
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).not.toContain("skills_install_apply");
      expect(names).toContain("skills_execute");
      const ref = ((await call(client, "skills_resolve", { ref: "memory-pressure" })).structuredContent!.data as { pinned_ref: string }).pinned_ref;
      expect((await call(client, "skills_execute", { ref, entrypoint: "diagnose" })).structuredContent).toMatchObject({ ok: false, error: { code: "exec_refused" } });
      // The model cannot grant: grants are admin-socket methods.
      const viaAgent = await rawIpc(daemon.agentSocket, "skills_grants_add", { ref, entrypoint: "diagnose" });
      expect(viaAgent).toMatchObject({ ok: false, error: { code: "forbidden_method" } });
      // A grant is a human's act: refused from a pipe (exit 2, saying why), given at a terminal.
      const piped = await runHostgate(["skills", "grants", "add", ref, "diagnose", "--socket", daemon.adminSocket], { env: daemon.env });
      expect(piped.code).toBe(2);
      expect(piped.stderr).toMatch(/skills grants add needs a terminal/);
      expect(await rawIpc(daemon.adminSocket, "skills_grants_list", {})).toMatchObject({ result: { value: { ok: true, data: { grants: [] } } } });
      const grant = await runHostgateInPty(["skills", "grants", "add", ref, "diagnose", "--socket", daemon.adminSocket], { env: daemon.env });
      expect(grant.code, grant.output).toBe(0);
      expect(grant.output).toContain(`Granted ${ref} entrypoint diagnose.`);
      const r = await call(client, "skills_execute", { ref, entrypoint: "diagnose", args: ["--days", "1"] });
      expect(r.structuredContent).toMatchObject({ ok: true, data: { exit_code: 0, origin: "mcp" } });
      expect((r.structuredContent!.data as { stdout: string }).stdout).toMatch(/== Memory \(MiB\) ==/);
      expect(r._meta?.["dev.hostgate/untrusted"]).toBe(true);
    } finally { await client.close(); }
  });
});


describe("hostgate skills CLI", () => {
  let home: string;
  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), `skills-cli-${process.pid}-`));
    mkdirSync(join(home, "run"), { mode: 0o700 });
  });
  afterAll(() => { rmSync(home, { recursive: true, force: true }); });
  const run = (args: string[]): Promise<{ code: number | null; out: string; err: string }> => new Promise((resolve) => {
    const child = spawn(process.execPath, [HOSTGATE_BIN, "skills", ...args], { cwd: home, env: { ...process.env, HOME: home, XDG_STATE_HOME: join(home, "state"), XDG_RUNTIME_DIR: join(home, "run"), HOSTGATE_SOCKET: "" }, stdio: ["ignore", "pipe", "pipe"] });
    let out = ""; let err = "";
    child.stdout.on("data", (c: Buffer) => { out += c.toString(); });
    child.stderr.on("data", (c: Buffer) => { err += c.toString(); });
    child.once("exit", (code) => { resolve({ code, out, err }); });
  });

  it("prints the same envelope as the tool with --json, and exit codes 0 / 1 / 2", async () => {
    const s = await run(["search", "inodes exhausted", "--json"]);
    expect(s.code).toBe(0);
    expect(JSON.parse(s.out)).toMatchObject({ kind: "skills.search", ok: true });
    const nf = await run(["resolve", "no-such-skill", "--json"]);
    expect(nf.code).toBe(1);
    expect(JSON.parse(nf.out)).toMatchObject({ kind: "skills.resolve", ok: false, error: { code: "not_found" } });
    expect((await run(["search"])).code).toBe(2);
    expect((await run(["install", "disk-full", "--scope", "galaxy", "--json"])).code).toBe(2);
    const inst = await run(["install", "disk-full", "--runtime", "codex", "--json"]);
    expect(inst.code, inst.err).toBe(0);
    expect(existsSync(join(home, ".agents/skills/disk-full/SKILL.md"))).toBe(true);
  }, 120_000);

  it("T22-skills-cli: without --json a human reads what would change and the shell command to run, not a tool call", async () => {
    const dry = await run(["install", "service-flapping", "--runtime", "claude", "--dry-run"]);
    expect(dry.code, dry.err).toBe(0);
    expect(dry.out).toMatch(/^Would install into the user scope \(.+\):\n  service-flapping 1\.0\.0 \(sha256:[0-9a-f]{12}…, local\)\n    create    \.claude\/skills\/service-flapping\n/);
    expect(dry.out).toContain("Run the same command without --dry-run to install.");
    expect(dry.out).not.toMatch(/skills_install_apply|confirm|[{}]/);
    expect(existsSync(join(home, ".claude/skills/service-flapping"))).toBe(false);
    const done = await run(["install", "service-flapping", "--runtime", "claude"]);
    expect(done.code, done.err).toBe(0);
    expect(done.out).toContain(`Installed service-flapping (sha256:`);
    expect(done.out).toContain(`  ${join(home, ".claude/skills/service-flapping")}\n`);
    expect(done.out).not.toMatch(/skills_install_apply|[{}]/);
    expect(existsSync(join(home, ".claude/skills/service-flapping/SKILL.md"))).toBe(true);
  }, 120_000);
});
