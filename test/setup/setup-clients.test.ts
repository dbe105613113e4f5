// `hostgate setup` against fixture homes, for every client: fresh, other servers, an existing hostgate entry,
// comments, malformed and read-only files, a second run, backups, tokens (0600, .gitignore).
import { chmodSync, copyFileSync, existsSync, readFileSync, readdirSync, realpathSync, statSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { parse as parseJsonc } from "jsonc-parser";
import { parse as parseToml } from "smol-toml";
import { parse as parseYaml } from "yaml";
import { describe, expect, it } from "vitest";
import { CLIENT_IDS, clientById, type ClientId } from "../../src/core/clients/catalog.ts";
import { applyPlan, planSetup, planSucceeded, type SetupChoices } from "../../src/cli/setup-run.ts";
import { clientFile, existingEntry, freshHome, malformed, otherServers, seed, withComments } from "./fixtures.ts";

const NODE = realpathSync(process.execPath);
const LAUNCHER = realpathSync(join(import.meta.dirname, "../../bin/hostgate.js"));

function choices(id: ClientId, extra: Partial<SetupChoices> = {}): SetupChoices {
  return { clients: [id], transport: "stdio", socket: null, url: "http://127.0.0.1:48000/mcp", planner: null, claudeScope: "user", ...extra };
}

function run(id: ClientId, env: NodeJS.ProcessEnv, cwd: string, extra: Partial<SetupChoices> = {}) {
  const plan = planSetup(choices(id, extra), env, cwd);
  const applied = applyPlan(plan);
  const file = plan.files.find((f) => f.target === id)!;
  return { plan, applied, file, ok: planSucceeded(plan, applied) };
}

function readDoc(id: ClientId, path: string): Record<string, unknown> {
  const text = readFileSync(path, "utf8");
  const format = clientById(id).format;
  return (format === "toml" ? parseToml(text) : format === "yaml" ? parseYaml(text) : parseJsonc(text, [], { allowTrailingComma: true })) as Record<string, unknown>;
}

/** A server of the client's table by name (Continue's table is a list of named servers; its `name` is left out). */
function serverOf(id: ClientId, doc: Record<string, unknown>, name: string): Record<string, unknown> | undefined {
  const table = doc[clientById(id).table[0]!];
  if (!Array.isArray(table)) return (table as Record<string, unknown>)[name] as Record<string, unknown> | undefined;
  const found = (table as Record<string, unknown>[]).find((s) => s.name === name);
  if (found === undefined) return undefined;
  return Object.fromEntries(Object.entries(found).filter(([k]) => k !== "name"));
}

function entryOf(id: ClientId, path: string): Record<string, unknown> {
  return serverOf(id, readDoc(id, path), "hostgate")!;
}

/** The program an entry starts and its arguments, whatever the client calls them. */
function launchOf(id: ClientId, e: Record<string, unknown>): { command: unknown; args: unknown } {
  if (id === "opencode") return { command: (e.command as string[])[0], args: (e.command as string[]).slice(1) };
  if (id === "goose") return { command: e.cmd, args: e.args };
  return { command: e.command, args: e.args };
}

function besideOf(path: string): string[] {
  return readdirSync(dirname(path)).filter((n) => n.startsWith(`${path.split("/").pop()!}.hostgate-backup-`)).map((n) => join(dirname(path), n));
}

/** Backups of `path`: beside it, or (project files) under the fixture home's state dir. */
function backupsOf(path: string, home?: string): string[] {
  const store = home === undefined ? null : join(home, "state", "hostgate", "setup-backups");
  const stored = store !== null && existsSync(store) ? readdirSync(store).flatMap((d) => besideOf(join(store, d, path.split("/").pop()!))) : [];
  return [...besideOf(path), ...stored];
}

describe.each(CLIENT_IDS)("setup %s", (id) => {
  it("fresh home: creates the file with an entry in the client's shape, absolute paths", () => {
    const { env, cwd, home } = freshHome(id);
    const r = run(id, env, cwd);
    expect(r.ok).toBe(true);
    expect(r.file.result.status).toBe("created");
    const path = clientFile(id, home, cwd);
    const e = entryOf(id, path);
    expect(launchOf(id, e)).toEqual({ command: NODE, args: [LAUNCHER, "mcp"] });
    if (id === "opencode") {
      expect(e).toMatchObject({ type: "local", enabled: true });
      expect(e).not.toHaveProperty("args");
    }
    if (id === "goose") expect(e).toMatchObject({ type: "stdio", enabled: true, name: "hostgate", envs: { HOSTGATE_DAEMON: "embedded" } });
    if (id === "goose") expect(e).not.toHaveProperty("command");
    if (id === "continue") expect(readDoc(id, path)).toMatchObject({ name: expect.any(String) as unknown, version: expect.any(String) as unknown, schema: "v1" });
    if (id === "codex") expect(e.startup_timeout_sec).toBeGreaterThan(10);
    if (id === "claude" || id === "vscode" || id === "cline") expect(e.type).toBe("stdio");
    if (id === "cursor" || id === "lmstudio" || id === "gemini" || id === "claude-desktop" || id === "zed" || id === "kiro" || id === "continue") expect(e).not.toHaveProperty("type");
    if (id === "vscode") expect(Object.keys(readDoc(id, path))).toEqual(["servers"]);
    expect(statSync(path).mode & 0o777).toBe(0o644);
  });

  it("keeps other servers, and a second run changes nothing (no new backup)", () => {
    const { env, cwd, home } = freshHome(id);
    const path = clientFile(id, home, cwd);
    seed(path, otherServers(id));
    const first = run(id, env, cwd);
    expect(first.file.result.status).toBe("updated");
    const doc = readDoc(id, path);
    expect(serverOf(id, doc, "docs")).toEqual({ command: "npx", args: ["-y", "docs-server"] });
    // Only lines were added: the file as the client wrote it (its indentation, its list style) is all still there.
    if (clientById(id).format === "yaml") expect(readFileSync(path, "utf8")).toContain(otherServers(id).trimEnd().split("\n").slice(-4).join("\n"));
    const after = readFileSync(path, "utf8");
    const backups = backupsOf(path, home);
    expect(backups).toHaveLength(1);
    const second = run(id, env, cwd);
    expect(second.file.result.status).toBe("unchanged");
    expect(readFileSync(path, "utf8")).toBe(after);
    expect(backupsOf(path, home)).toEqual(backups);
  });

  it("updates an existing hostgate entry and keeps the keys a user added to it", () => {
    const { env, cwd, home } = freshHome(id);
    const path = clientFile(id, home, cwd);
    const fx = existingEntry(id);
    seed(path, fx.text);
    expect(run(id, env, cwd).file.result.status).toBe("updated");
    const e = entryOf(id, path);
    expect(launchOf(id, e).command).toBe(NODE);
    expect(e[fx.userKey]).toBe(fx.userValue);
  });

  it("keeps comments and formatting", () => {
    const { env, cwd, home } = freshHome(id);
    const path = clientFile(id, home, cwd);
    const original = withComments(id);
    seed(path, original);
    expect(run(id, env, cwd).file.result.status).toBe("updated");
    const text = readFileSync(path, "utf8");
    const comments = original.split("\n").flatMap((l) => /(\/\/.*|\/\*.*\*\/|#.*)$/.exec(l)?.[1] ?? []);
    expect(comments.length).toBeGreaterThan(2);
    for (const c of comments) expect(text).toContain(c);
    // Every original line is still there, in order (only lines were added).
    let at = 0;
    for (const line of original.split("\n").filter((l) => l.trim() !== "")) {
      const next = text.indexOf(line, at);
      expect(next, `line ${JSON.stringify(line)} kept`).toBeGreaterThanOrEqual(0);
      at = next + line.length;
    }
    expect(entryOf(id, path)).toBeDefined();
  });

  it("reports a malformed file and leaves it untouched (no backup)", () => {
    const { env, cwd, home } = freshHome(id);
    const path = clientFile(id, home, cwd);
    seed(path, malformed(id));
    const r = run(id, env, cwd);
    expect(r.ok).toBe(false);
    expect(r.file.result.status).toBe("malformed");
    expect(readFileSync(path, "utf8")).toBe(malformed(id));
    expect(backupsOf(path, home)).toHaveLength(0);
  });

  it("leaves a read-only file alone and says how to make it writable", () => {
    const { env, cwd, home } = freshHome(id);
    const path = clientFile(id, home, cwd);
    seed(path, otherServers(id), 0o444);
    const r = run(id, env, cwd);
    expect(r.ok).toBe(false);
    expect(r.file.result).toMatchObject({ status: "unwritable" });
    expect((r.file.result as { reason: string }).reason).toMatch(/read-only.*chmod u\+w/);
    expect(readFileSync(path, "utf8")).toBe(otherServers(id));
  });

  it("backs the file up first (0600; project files outside the repository); copying the backup back restores the original bytes", () => {
    const { env, cwd, home } = freshHome(id);
    const path = clientFile(id, home, cwd);
    const original = withComments(id);
    seed(path, original, 0o640);
    const r = run(id, env, cwd);
    const [backup] = backupsOf(path, home);
    expect(backup).toBeDefined();
    expect((r.applied.get(r.file) as { backup: string }).backup).toBe(backup);
    expect(readFileSync(backup!, "utf8")).toBe(original);
    // A backup may hold an old token: only its owner reads it, whatever the file's mode.
    expect(statSync(backup!).mode & 0o777).toBe(0o600);
    expect(statSync(backup!).uid).toBe(statSync(path).uid);
    const project = id === "vscode";
    expect(besideOf(path).length, "a project file's backup is not left in the project").toBe(project ? 0 : 1);
    expect(statSync(path).mode & 0o777).toBe(0o640);
    copyFileSync(backup!, path);
    expect(readFileSync(path, "utf8")).toBe(original);
  });

  it("a token makes the file 0600 (and tightens an unchanged one)", () => {
    const { env, cwd, home } = freshHome(id);
    const path = clientFile(id, home, cwd);
    const token = "t".repeat(40);
    const r = run(id, env, cwd, { socket: "tcp://127.0.0.1:7420", token });
    expect(r.ok).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, "utf8")).toContain(token);
    chmodSync(path, 0o644);
    const again = run(id, env, cwd, { socket: "tcp://127.0.0.1:7420", token });
    expect(again.file.result.status).toBe("unchanged");
    expect(again.file.tighten).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it("HTTP: an entry for hostgate serve with a bearer header (stdio for Claude Desktop, which reads no URLs)", () => {
    const { env, cwd, home } = freshHome(id);
    const path = clientFile(id, home, cwd);
    const r = run(id, env, cwd, { transport: "http", url: "http://127.0.0.1:48123/mcp", httpToken: "h".repeat(20) });
    expect(r.ok).toBe(true);
    const e = entryOf(id, path);
    if (id === "claude-desktop") {
      expect(e.command).toBe(NODE);
      expect(r.file.notes.join(" ")).toMatch(/only stdio/);
      return;
    }
    expect(id === "goose" ? e.uri : e.url).toBe("http://127.0.0.1:48123/mcp");
    expect(e).not.toHaveProperty("command");
    expect(e).not.toHaveProperty("cmd");
    const header = id === "codex" ? e.http_headers : id === "continue" ? (e.requestOptions as Record<string, unknown>).headers : e.headers;
    expect((header as Record<string, string>).Authorization).toBe(`Bearer ${"h".repeat(20)}`);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    if (id === "opencode") expect(e).toMatchObject({ type: "remote", oauth: false });
    if (id === "claude" || id === "vscode" || id === "gemini") expect(e.type).toBe("http");
    if (id === "codex") expect(e).not.toHaveProperty("headers");
    const types: Partial<Record<ClientId, string>> = { cline: "streamableHttp", goose: "streamable_http", continue: "streamable-http" };
    if (types[id] !== undefined) expect(e.type).toBe(types[id]);
  });
});

describe("setup: project files, planner, user config", () => {
  it("a project .mcp.json holding a token is checked against .gitignore", () => {
    const { env, cwd } = freshHome("gitignore");
    expect(spawnSync("git", ["init", "-q"], { cwd }).status).toBe(0);
    const token = "k".repeat(40);
    const r = run("claude", env, cwd, { claudeScope: "project", socket: "tcp://10.0.0.2:7420", token });
    expect(r.file.path).toBe(join(cwd, ".mcp.json"));
    expect(r.file.warnings.join(" ")).toMatch(/not ignored by git.*\.gitignore/);
    writeFileSync(join(cwd, ".gitignore"), ".mcp.json\n");
    const again = run("claude", env, cwd, { claudeScope: "project", socket: "tcp://10.0.0.2:7420", token });
    expect(again.file.warnings).toEqual([]);
  });

  it("the planner's key variable is forwarded in each client's own syntax, never its value", () => {
    const forms: Partial<Record<ClientId, (e: Record<string, unknown>) => unknown>> = {
      claude: (e) => (e.env as Record<string, string>).MY_KEY,
      cursor: (e) => (e.env as Record<string, string>).MY_KEY,
      vscode: (e) => (e.env as Record<string, string>).MY_KEY,
      gemini: (e) => (e.env as Record<string, string>).MY_KEY,
      opencode: (e) => (e.environment as Record<string, string>).MY_KEY,
      codex: (e) => e.env_vars,
      kiro: (e) => (e.env as Record<string, string>).MY_KEY,
      goose: (e) => e.env_keys,
    };
    const expected: Partial<Record<ClientId, unknown>> = { claude: "${MY_KEY}", cursor: "${env:MY_KEY}", vscode: "${env:MY_KEY}", gemini: "$MY_KEY", opencode: "{env:MY_KEY}", codex: ["MY_KEY"], kiro: "${MY_KEY}", goose: ["MY_KEY"] };
    for (const id of Object.keys(forms) as ClientId[]) {
      const { env, cwd, home } = freshHome(`planner-${id}`);
      const r = run(id, { ...env, MY_KEY: "sk-secret-value" }, cwd, { planner: { base_url: "http://127.0.0.1:8080/v1", model: "m", api_key_env: "MY_KEY" } });
      expect(r.ok).toBe(true);
      const path = clientFile(id, home, cwd);
      expect(forms[id]!(entryOf(id, path))).toEqual(expected[id]);
      expect(readFileSync(path, "utf8")).not.toContain("sk-secret-value");
      // The planner itself goes into the user's hostgate config, and the entry points at it.
      const cfg = join(home, ".config", "hostgate", "config.yaml");
      expect(readFileSync(cfg, "utf8")).toMatch(/mode: llm[\s\S]*base_url: http:\/\/127.0.0.1:8080\/v1[\s\S]*api_key_env: MY_KEY/);
      const e = entryOf(id, path);
      const argv = id === "opencode" ? (e.command as string[]) : (e.args as string[]);
      expect(argv.slice(-2)).toEqual(["--config", cfg]);
    }
    for (const id of ["lmstudio", "cline", "zed", "continue"] as const) {
      const { env, cwd } = freshHome(`planner-${id}`);
      const r = run(id, env, cwd, { planner: { base_url: "http://127.0.0.1:8080/v1", model: "m", api_key_env: "MY_KEY" } });
      expect(r.file.notes.join(" "), id).toMatch(/does not expand variables: MY_KEY/);
    }
  });

  it("the user config keeps its comments and other keys on a second run", () => {
    const { env, cwd, home } = freshHome("usercfg");
    const cfg = join(home, ".config", "hostgate", "config.yaml");
    seed(cfg, "# my settings\ntools:\n  exposure: read_only # careful\n");
    run("cursor", env, cwd, { socket: "/run/hostgate/agent.sock" });
    const text = readFileSync(cfg, "utf8");
    expect(text).toContain("# my settings");
    expect(text).toContain("exposure: read_only # careful");
    expect(text).toContain("socket: /run/hostgate/agent.sock");
    const second = run("cursor", env, cwd, { socket: "/run/hostgate/agent.sock" });
    expect(second.plan.files.find((f) => f.target === "config")!.result.status).toBe("unchanged");
    expect(readFileSync(cfg, "utf8")).toBe(text);
  });

  it("switching to HTTP leaves daemon.socket in the user config alone (it belongs to hostgate serve then)", () => {
    const { env, cwd, home } = freshHome("http-keeps-socket");
    run("cursor", env, cwd, { socket: "/run/hostgate/agent.sock" });
    const cfg = join(home, ".config", "hostgate", "config.yaml");
    const before = readFileSync(cfg, "utf8");
    const r = run("cursor", env, cwd, { transport: "http", url: "http://127.0.0.1:48000/mcp" });
    expect(r.plan.files.find((f) => f.target === "config")!.result.status).toBe("unchanged");
    expect(readFileSync(cfg, "utf8")).toBe(before);
  });

  it("a symlinked client file is edited in place; the link stays a link", async () => {
    const { env, cwd, home } = freshHome("symlink");
    const path = clientFile("cursor", home, cwd);
    const real = join(home, "dotfiles", "cursor-mcp.json");
    seed(real, otherServers("cursor"));
    const { symlinkSync, lstatSync } = await import("node:fs");
    seed(path, "");
    const { unlinkSync } = await import("node:fs");
    unlinkSync(path);
    symlinkSync(real, path);
    expect(run("cursor", env, cwd).ok).toBe(true);
    expect(lstatSync(path).isSymbolicLink()).toBe(true);
    expect(readFileSync(real, "utf8")).toContain("hostgate");
    expect(backupsOf(real, home)).toHaveLength(1);
    expect(existsSync(join(dirname(path), "mcp.json.hostgate-backup-"))).toBe(false);
  });
});

describe("setup as root, against files a user controls", () => {
  it.skipIf(process.getuid?.() !== 0)("does not follow a user's symlink to another owner's file", async () => {
    const { symlinkSync, chownSync, lchownSync, mkdirSync: mk } = await import("node:fs");
    const { env, cwd, home } = freshHome("root-symlink");
    const victim = join(home, "root-owned.json");
    seed(victim, "{}\n");
    chownSync(victim, 0, 0);
    const path = clientFile("cursor", home, cwd);
    mk(dirname(path), { recursive: true });
    symlinkSync(victim, path);
    lchownSync(path, 4242, 4242);
    const r = run("cursor", env, cwd);
    expect(r.ok).toBe(false);
    expect((r.file.result as { reason: string }).reason).toMatch(/mcp\.json belongs to uid 4242: setup as root does not write under another user's files; run it as that user/);
    expect(readFileSync(victim, "utf8")).toBe("{}\n");
  });

  it("a project .mcp.json already tracked by git: warns that the token would be committed", () => {
    const { env, cwd } = freshHome("tracked");
    expect(spawnSync("git", ["init", "-q"], { cwd }).status).toBe(0);
    writeFileSync(join(cwd, ".mcp.json"), "{}\n");
    writeFileSync(join(cwd, ".gitignore"), ".mcp.json\n");
    expect(spawnSync("git", ["add", "-f", ".mcp.json"], { cwd }).status).toBe(0);
    const r = run("claude", env, cwd, { claudeScope: "project", socket: "tcp://10.0.0.2:7420", token: "k".repeat(40) });
    expect(r.file.warnings.join(" ")).toMatch(/tracked by git.*git rm --cached \.mcp\.json/);
  });
});
