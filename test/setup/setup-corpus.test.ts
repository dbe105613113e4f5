// Corpus cases of area `setup` (../shared/corpus/cases.jsonl: T3-30, T3-32, T3-33) and issue 21's file
// edges: deeply nested files, project backups out of git's sight, root's own home next to another user's project.
import { spawnSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { parse as parseJsonc } from "jsonc-parser";
import { describe, expect, it } from "vitest";
import { applyPlan, planSetup, planSucceeded, type SetupChoices } from "../../src/cli/setup-run.ts";
import type { ClientId } from "../../src/core/clients/catalog.ts";
import { MAX_NESTING, nestingDepth } from "../../src/core/clients/nesting.ts";
import { readEntry } from "../../src/core/clients/read-entry.ts";
import { clientById } from "../../src/core/clients/catalog.ts";
import { runHostgate } from "../helpers/hostgate.ts";
import { clientFile, freshHome, otherServers, seed } from "./fixtures.ts";

function run(id: ClientId, env: NodeJS.ProcessEnv, cwd: string, extra: Partial<SetupChoices> = {}) {
  const plan = planSetup({ clients: [id], transport: "stdio", socket: null, url: "http://127.0.0.1:48000/mcp", planner: null, claudeScope: "user", ...extra }, env, cwd);
  const applied = applyPlan(plan);
  const file = plan.files.find((f) => f.target === id)!;
  return { file, applied, ok: planSucceeded(plan, applied) };
}

const reason = (r: ReturnType<typeof run>) => (r.file.result as { reason?: string }).reason ?? "";

describe("setup corpus cases", () => {
  it("T3-30: .vscode/mcp.json with comments, a commented-out server and trailing commas keeps them all; only our entry is added under servers", async () => {
    const { env, cwd, home } = freshHome("t3-30");
    const path = clientFile("vscode", home, cwd);
    const original = [
      "// Workspace MCP servers",
      "{",
      "  /* shared with the team */",
      '  "inputs": [],',
      '  "servers": {',
      '    "docs": { "command": "npx", "args": ["-y", "docs-server",], }, // keep me',
      '    // "old": { "command": "old-server" },',
      "    /* \"retired\": { \"url\": \"http://127.0.0.1:9/mcp\" }, */",
      "  },",
      "}",
      "",
    ].join("\n");
    seed(path, original);
    const r = await runHostgate(["setup", "--yes", "--vscode"], { env, cwd });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const text = readFileSync(path, "utf8");
    let at = 0;
    for (const line of original.split("\n").filter((l) => l.trim() !== "")) {
      const next = text.indexOf(line, at);
      expect(next, `line ${JSON.stringify(line)} kept in order`).toBeGreaterThanOrEqual(0);
      at = next + line.length;
    }
    const doc = parseJsonc(text, [], { allowTrailingComma: true }) as { servers: Record<string, unknown>; inputs: unknown[] };
    expect(Object.keys(doc.servers).sort()).toEqual(["docs", "hostgate"]);
    expect(doc.servers.docs).toEqual({ command: "npx", args: ["-y", "docs-server"] });
    expect(doc.inputs).toEqual([]);
  });

  it("T3-32: a user's own ~/.cursor/mcp.json symlinked into a dotfiles directory: link kept, target edited, backup beside the target", () => {
    const { env, cwd, home } = freshHome("t3-32");
    const real = join(home, "dotfiles", "cursor", "mcp.json");
    seed(real, otherServers("cursor"));
    const link = clientFile("cursor", home, cwd);
    mkdirSync(join(home, ".cursor"));
    symlinkSync(real, link);
    const r = run("cursor", env, cwd);
    expect(r.ok).toBe(true);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    const doc = JSON.parse(readFileSync(real, "utf8")) as { mcpServers: Record<string, unknown> };
    expect(Object.keys(doc.mcpServers).sort()).toEqual(["docs", "hostgate"]);
    const backup = (r.applied.get(r.file) as { backup: string }).backup;
    expect(backup.startsWith(`${real}.hostgate-backup-`)).toBe(true);
    expect(readFileSync(backup, "utf8")).toBe(otherServers("cursor"));
    expect(readdirSync(join(home, ".cursor"))).toEqual(["mcp.json"]);
  });

  it("T3-33: ~/.gemini/settings.json with two mcpServers members (the first holding an old hostgate entry) is refused and left untouched", () => {
    const { env, cwd, home } = freshHome("t3-33");
    const path = clientFile("gemini", home, cwd);
    const original = '{\n  "mcpServers": { "hostgate": { "command": "/old/hostgate", "args": ["mcp"] } },\n  "theme": "dark",\n  "mcpServers": { "docs": { "command": "npx" } }\n}\n';
    seed(path, original);
    const r = run("gemini", env, cwd);
    expect(r.ok).toBe(false);
    expect(r.file.result.status).toBe("malformed");
    expect(reason(r)).toMatch(/"mcpServers" appears more than once in the top level: readers keep only the last one.*merge the occurrences by hand/);
    expect(readFileSync(path, "utf8")).toBe(original);
    expect(readdirSync(join(home, ".gemini"))).toEqual(["settings.json"]);
  });

  it("T3-33: a repeated hostgate key inside the server table is refused the same way", () => {
    const { env, cwd, home } = freshHome("t3-33-inner");
    const path = clientFile("gemini", home, cwd);
    const original = '{ "mcpServers": { "hostgate": { "command": "/a" }, "hostgate": { "command": "/b" } } }\n';
    seed(path, original);
    const r = run("gemini", env, cwd);
    expect(reason(r)).toMatch(/"hostgate" appears more than once in `mcpServers`/);
    expect(readFileSync(path, "utf8")).toBe(original);
  });
});

describe("deeply nested files are refused with a message, never a stack overflow", () => {
  const deepJson = `{ "mcpServers": { "docs": ${'{"a":'.repeat(20_000)}1${"}".repeat(20_000)} } }\n`;
  const deepToml = `[mcp_servers.docs]\nargs = ${"[".repeat(20_000)}${"]".repeat(20_000)}\n`;

  it.each([["cursor", deepJson], ["codex", deepToml]] as const)("%s: a file nested 20,000 levels is reported malformed and left untouched", (id, text) => {
    const { env, cwd, home } = freshHome(`deep-${id}`);
    const path = clientFile(id, home, cwd);
    seed(path, text);
    const r = run(id, env, cwd);
    expect(r.ok).toBe(false);
    expect(reason(r)).toMatch(/nested more than 64 levels deep.*fix or move the file away/);
    expect(readFileSync(path, "utf8")).toBe(text);
  });

  it("the hostgate user config nested too deeply: reported, left untouched", () => {
    const { env, cwd, home } = freshHome("deep-yaml");
    const cfg = join(home, ".config", "hostgate", "config.yaml");
    const text = `tools: ${"[".repeat(20_000)}${"]".repeat(20_000)}\n`;
    seed(cfg, text);
    const r = planSetup({ clients: ["cursor"], transport: "stdio", socket: "/run/hostgate/agent.sock", url: "", planner: null, claudeScope: "user" }, env, cwd);
    expect(r.files[0]!.result).toMatchObject({ status: "malformed", reason: expect.stringMatching(/nested more than 64 levels/) as unknown });
    expect(readFileSync(cfg, "utf8")).toBe(text);
  });

  it("doctor's reading of an entry reports the depth as malformed", () => {
    expect(readEntry(clientById("cursor"), deepJson)).toMatchObject({ state: "malformed", reason: expect.stringMatching(/nested more than 64/) as unknown });
  });

  it("nesting is measured outside strings and comments; 64 levels pass, 65 do not", () => {
    const nest = (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`;
    expect(nestingDepth(nest(MAX_NESTING), "json")).toBe(MAX_NESTING);
    expect(nestingDepth(nest(MAX_NESTING + 1), "json")).toBeGreaterThan(MAX_NESTING);
    expect(nestingDepth(`{"s": "${"[".repeat(100)}\\"{", // ${"{".repeat(100)}\n/* ${"[".repeat(100)} */ "t": [1]}`, "json")).toBe(2);
    expect(nestingDepth(`a = '${"[".repeat(100)}'\nb = """${"{".repeat(100)}"""\n# ${"[".repeat(100)}\nc = [[1]]\n`, "toml")).toBe(2);
    // In YAML `#` opens a comment only after a blank: `x#[` is a plain scalar, and its bracket counts.
    expect(nestingDepth(`a: '${"[".repeat(100)}'\nb: x#[\n# ${"{".repeat(100)}\nc: [1]\n`, "yaml")).toBe(2);
  });
});

describe("project backups and root's own home", () => {
  it("a project file's backup is not left where git sees it", () => {
    const { env, cwd, home } = freshHome("project-backup");
    expect(spawnSync("git", ["init", "-q"], { cwd }).status).toBe(0);
    const path = clientFile("claude", home, cwd, "project");
    seed(path, otherServers("claude"));
    const r = run("claude", env, cwd, { claudeScope: "project" });
    expect(r.ok).toBe(true);
    const backup = (r.applied.get(r.file) as { backup: string }).backup;
    expect(backup.startsWith(join(home, "state", "hostgate", "setup-backups"))).toBe(true);
    expect(readFileSync(backup, "utf8")).toBe(otherServers("claude"));
    const status = spawnSync("git", ["status", "--porcelain", "--untracked-files=all"], { cwd, encoding: "utf8" }).stdout;
    expect(status.split("\n").filter(Boolean)).toEqual(["?? .mcp.json"]);
  });

  it.skipIf(process.getuid?.() !== 0)("root for its own home does not write into a project directory another user owns", () => {
    const { env, cwd, home } = freshHome("root-project");
    chownSync(cwd, 65534, 65534);
    const r = run("vscode", env, cwd);
    expect(r.ok).toBe(false);
    expect(reason(r)).toMatch(/project belongs to uid 65534: setup as root does not write under another user's files; run it as that user/);
    expect(existsSync(join(cwd, ".vscode"))).toBe(false);
    expect(clientFile("vscode", home, cwd).startsWith(cwd)).toBe(true);
  });

  it.skipIf(process.getuid?.() !== 0)("root for its own home refuses a directory on the way that others can write to", () => {
    const { env, cwd, home } = freshHome("root-writable");
    mkdirSync(join(home, ".cursor"));
    chmodSync(join(home, ".cursor"), 0o777);
    const r = run("cursor", env, cwd);
    expect(r.ok).toBe(false);
    expect(reason(r)).toMatch(/\.cursor is writable by other users \(mode 777\)/);
    expect(readdirSync(join(home, ".cursor"))).toEqual([]);
  });
});
