// `hostgate setup` and `hostgate doctor` as processes: --dry-run diffs per client (snapshots), exit codes,
// the refusal without a terminal, and entries that start with no PATH and answer tools/list.
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CLIENT_IDS } from "../../src/core/clients/catalog.ts";
import { runHostgate } from "../helpers/hostgate.ts";
import { ownerEnv, sudoUserEnv } from "../../src/cli/setup-command.ts";
import { geminiTrustLine } from "../../src/cli/doctor-checks.ts";
import { clientFile, freshHome, malformed, seed } from "./fixtures.ts";

const NODE = realpathSync(process.execPath);
const LAUNCHER = realpathSync(join(import.meta.dirname, "../../bin/hostgate.js"));

function normalise(text: string, home: string): string {
  return text.split(home).join("<HOME>").split(LAUNCHER).join("<HOSTGATE>").split(NODE).join("<NODE>");
}

describe("hostgate setup (process)", () => {
  it.each(CLIENT_IDS)("--dry-run --%s prints the diff, writes nothing", async (id) => {
    const { home, env } = freshHome(`dry-${id}`);
    const cwd = join(home, "project");
    const r = await runHostgate(["setup", "--yes", "--dry-run", `--${id}`, "--socket", "tcp://10.0.0.2:7420"], { env: { ...env, HOSTGATE_TOKEN: "s".repeat(40), XDG_CONFIG_HOME: "", CODEX_HOME: "" }, cwd });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain("s".repeat(40));
    expect(normalise(r.stdout, home)).toMatchSnapshot();
    expect(() => readFileSync(clientFile(id, home, cwd))).toThrow();
  });

  it("--dry-run needs no --yes without a terminal (it writes nothing)", async () => {
    const { env, home } = freshHome("dry-noyes");
    const r = await runHostgate(["setup", "--dry-run", "--cursor"], { env, cwd: join(home, "project") });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/~ Cursor: .*would be created/);
  });

  it("without a terminal and without --yes: exit 2 and what to pass", async () => {
    const { env } = freshHome("notty");
    const r = await runHostgate(["setup", "--cursor"], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no terminal.*--yes/);
  });

  it("--yes without a client: exit 2 naming the flags and the clients installed here", async () => {
    const { env, home } = freshHome("noclient");
    mkdirSync(join(home, ".gemini"));
    const r = await runHostgate(["setup", "--yes"], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no client chosen.*--claude.*installed here: --gemini/);
  });

  it("bad flags are refused before anything is read: exit 2", async () => {
    const { env } = freshHome("badflags");
    for (const args of [["--socket", "relative.sock"], ["--socket", "tcp://h:1"], ["--transport", "carrier-pigeon"], ["--scope", "team"], ["--planner-url", "http://x/v1"]]) {
      const r = await runHostgate(["setup", "--yes", "--cursor", ...args], { env });
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr, args.join(" ")).toMatch(/hostgate setup: /);
    }
  });

  it("a malformed file: exit 1, the other clients still configured, the file untouched", async () => {
    const { env, home } = freshHome("malformed-cli");
    const cwd = join(home, "project");
    const bad = clientFile("gemini", home, cwd);
    seed(bad, malformed("gemini"));
    const r = await runHostgate(["setup", "--yes", "--gemini", "--cursor"], { env, cwd });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/✗ Gemini CLI: .*left untouched: not valid JSON/);
    expect(r.stdout).toMatch(/✓ Cursor: .*created/);
    expect(readFileSync(bad, "utf8")).toBe(malformed("gemini"));
  });

  it("entries written by setup start with no PATH and answer tools/list (hostgate doctor)", async () => {
    const { env, home } = freshHome("doctor");
    const cwd = join(home, "project");
    const runtime = join(home, "run");
    mkdirSync(runtime, { mode: 0o700 });
    const full = { ...env, XDG_RUNTIME_DIR: runtime, XDG_STATE_HOME: join(home, "state") };
    const setup = await runHostgate(["setup", "--yes", "--cursor", "--codex", "--opencode"], { env: full, cwd });
    expect(setup.code).toBe(0);
    // The embedded daemon is pinned (issue 22): a system daemon installed later does not take this client's plans.
    expect((JSON.parse(readFileSync(clientFile("cursor", home, cwd), "utf8")) as { mcpServers: { hostgate: { env: Record<string, string> } } }).mcpServers.hostgate.env).toMatchObject({ HOSTGATE_DAEMON: "embedded" });
    const r = await runHostgate(["doctor"], { env: full, cwd, timeoutMs: 60_000 });
    expect(r.stdout).toMatch(/✓ Cursor: .*starts without PATH and answers tools\/list \(\d+ tools, hostgate \d+\.\d+\.\d+/);
    expect(r.stdout).toMatch(/✓ Codex CLI: .*answers tools\/list/);
    expect(r.stdout).toMatch(/✓ OpenCode: .*answers tools\/list/);
    expect(r.stdout).toMatch(/! approval separation: none: [\s\S]*fix: sudo hostgate daemon install/);
    expect(r.code, r.stdout + r.stderr).toBe(0);
  });

  it("Cline, Continue, Goose, Zed and Kiro entries written by setup are read back by doctor and answer tools/list; Gemini's folder trust is reported", async () => {
    const { env, home } = freshHome("doctor-more");
    const cwd = join(home, "project");
    const runtime = join(home, "run");
    mkdirSync(runtime, { mode: 0o700 });
    const full = { ...env, XDG_RUNTIME_DIR: runtime, XDG_STATE_HOME: join(home, "state") };
    const setup = await runHostgate(["setup", "--yes", "--cline", "--continue", "--goose", "--zed", "--kiro", "--gemini"], { env: full, cwd });
    expect(setup.code, setup.stdout + setup.stderr).toBe(0);
    expect(setup.stdout).toMatch(/note: Gemini CLI with Folder Trust on .* connects no MCP server in an untrusted folder/);
    // Settings as setup left them (no security.folderTrust key: Gemini CLI's default, Folder Trust on) and no rule
    // for this folder yet: the trial of issue 25 got ✓ here while Gemini showed the server Disabled.
    const settings = clientFile("gemini", home, cwd);
    expect(JSON.parse(readFileSync(settings, "utf8")) as object).not.toHaveProperty("security");
    const r = await runHostgate(["doctor"], { env: full, cwd, timeoutMs: 120_000 });
    for (const label of ["Cline", "Continue", "Goose", "Zed", "Kiro", "Gemini CLI"]) {
      expect(r.stdout, label).toMatch(new RegExp(`✓ ${label}: .*starts without PATH and answers tools/list \\(\\d+ tools`));
    }
    expect(r.stdout).toMatch(/! Gemini CLI folder trust: Folder Trust is on and .*project has no trust rule: Gemini CLI .*connects no MCP server until the folder is trusted[\s\S]*fix: run gemini in .*project and choose "Trust folder"/);
    // Trusted through the parent: the line turns ok (same check, in-process).
    writeFileSync(join(home, ".gemini", "trustedFolders.json"), JSON.stringify({ [join(cwd, "x")]: "TRUST_PARENT" }));
    const line = await geminiTrustLine(readFileSync(settings, "utf8"), full, home, cwd);
    expect(line).toMatchObject({ status: "ok", detail: expect.stringMatching(/is trusted \(.*TRUST_PARENT\)/) as unknown });
    // Turned off in settings: no trust line at all.
    writeFileSync(settings, JSON.stringify({ ...(JSON.parse(readFileSync(settings, "utf8")) as object), security: { folderTrust: { enabled: false } } }, null, 2));
    expect(await geminiTrustLine(readFileSync(settings, "utf8"), full, home, cwd)).toBeNull();
  });

  it("doctor: a missing binary and a broken file are failures with a fix; exit 1", async () => {
    const { env, home } = freshHome("doctor-bad");
    const cwd = join(home, "project");
    seed(clientFile("cursor", home, cwd), JSON.stringify({ mcpServers: { hostgate: { command: "/nonexistent/node", args: ["mcp"] } } }));
    seed(clientFile("gemini", home, cwd), malformed("gemini"));
    seed(clientFile("lmstudio", home, cwd), JSON.stringify({ mcpServers: { hostgate: { command: "hostgate", args: ["mcp"] } } }));
    const r = await runHostgate(["doctor"], { env: { ...env, XDG_RUNTIME_DIR: join(home, "run"), XDG_STATE_HOME: join(home, "state") }, cwd, timeoutMs: 60_000 });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/✗ Cursor: .*\/nonexistent\/node does not exist\n\s+fix: hostgate setup --yes --cursor/);
    expect(r.stdout).toMatch(/✗ Gemini CLI: .*not valid JSON\n\s+fix: fix the syntax/);
    expect(r.stdout).toMatch(/✗ LM Studio: .*not an absolute path/);
  });

  it.skipIf(process.getuid?.() !== 0)("doctor as root does not start an entry from a file another user owns", async () => {
    const { chownSync } = await import("node:fs");
    const { env, home } = freshHome("doctor-root");
    const cwd = join(home, "project");
    const marker = join(home, "ran");
    const file = clientFile("cursor", home, cwd);
    seed(file, JSON.stringify({ mcpServers: { hostgate: { command: "/bin/sh", args: ["-c", `touch ${marker}`] } } }));
    chownSync(file, 4242, 4242);
    const r = await runHostgate(["doctor"], { env: { ...env, XDG_RUNTIME_DIR: join(home, "run") }, cwd, timeoutMs: 60_000 });
    expect(r.stdout).toMatch(/! Cursor: .*not started: the file belongs to uid 4242 and doctor runs as root\n\s+fix: run hostgate doctor as that user/);
    expect(existsSync(marker)).toBe(false);
  });
});

describe("setup under sudo", () => {
  const homes: Record<string, string> = { ada: "/home/ada" };
  const lookup = (u: string) => homes[u] ?? null;
  it("configures the invoking user's clients: HOME and the runtime dir become theirs", () => {
    const env = sudoUserEnv({ HOME: "/root", SUDO_USER: "ada", SUDO_UID: "1000", XDG_CONFIG_HOME: "/root/.config" }, 0, lookup);
    expect(env).toMatchObject({ HOME: "/home/ada", XDG_CONFIG_HOME: "", CODEX_HOME: "", XDG_RUNTIME_DIR: "/run/user/1000" });
  });
  it("dropping to a home's owner drops root's per-user locations (root's XDG_RUNTIME_DIR never reaches their entries)", () => {
    const env = ownerEnv({ HOME: "/tmp/t1", XDG_RUNTIME_DIR: "/run/user/0", XDG_CONFIG_HOME: "/root/.config", XDG_STATE_HOME: "/tmp/t1/.local/state", PATH: "/usr/bin" }, 65534, "/tmp/t1");
    expect(env).toMatchObject({ HOME: "/tmp/t1", XDG_RUNTIME_DIR: "/run/user/65534", XDG_CONFIG_HOME: "", XDG_STATE_HOME: "/tmp/t1/.local/state", CODEX_HOME: "", PATH: "/usr/bin" });
  });
  it("leaves the environment alone when not root, for root itself, with HOME kept (sudo -E) or an unknown user", () => {
    const base = { HOME: "/root", SUDO_USER: "ada", SUDO_UID: "1000" };
    expect(sudoUserEnv(base, 1000, lookup)).toBe(base);
    expect(sudoUserEnv({ ...base, SUDO_USER: "root" }, 0, lookup).HOME).toBe("/root");
    expect(sudoUserEnv({ ...base, HOME: "/home/ada" }, 0, lookup).HOME).toBe("/home/ada");
    expect(sudoUserEnv({ ...base, SUDO_USER: "mallory" }, 0, lookup).HOME).toBe("/root");
    expect(sudoUserEnv({ ...base, SUDO_USER: "../../etc" }, 0, () => "/etc").HOME).toBe("/root");
  });
});
