// The client plugins (issue 25): one plugin directory, plugins/hostgate/, that Claude Code (.claude-plugin/marketplace.json
// → its .claude-plugin/plugin.json) and Codex (.agents/plugins/marketplace.json → its .codex-plugin/plugin.json) both
// install, with one .mcp.json for both; and the Gemini CLI extension (gemini-extension.json at the root). Their
// manifests are checked against the fields each vendor's docs require and against package.json's version; then
// each real client (test/clients) loads them in a fresh HOME, with the built hostgate on PATH: Claude Code
// validates and installs the plugin and connects to its server (`claude mcp list`), Gemini CLI validates, links
// and connects (`gemini mcp list` in a trusted folder), Codex adds the marketplace, installs the plugin and lists
// its server (`codex mcp list --json`; Codex has no command that connects without a model).
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { clientBin, clientMissing, makeWorkspace, runClient, type ClientPackage, type Workspace } from "../clients/harness.ts";
import { peerMissing } from "../helpers/peers.ts";
import { CLAUDE_PLUGIN_NAME } from "../../src/core/clients/claude-plugin.ts";
import { PLUGIN_COPIES, PLUGIN_DIR, PLUGIN_MANIFESTS, PLUGIN_MCP_JSON, pluginDrift } from "../../scripts/plugin-files.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const VERSION = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
const SKILLS = readdirSync(join(ROOT, "skills")).filter((d) => existsSync(join(ROOT, "skills", d, "SKILL.md"))).sort();
const KEBAB = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const SEMVER = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/;

type Json = Record<string, unknown>;
const read = (file: string): Json => JSON.parse(readFileSync(join(ROOT, file), "utf8")) as Json;

/** The stdio server every manifest declares: `hostgate mcp`, as server.json's stdio package runs it. */
const SERVER = { command: "hostgate", args: ["mcp"] };

describe("plugin manifests", () => {
  it("server.json's stdio package runs the same subcommand the plugins run", () => {
    const pkg = (read("server.json").packages as Json[]).find((p) => (p.transport as Json).type === "stdio")!;
    expect((pkg.packageArguments as Json[]).map((a) => a.value)).toEqual(SERVER.args);
  });

  it("Claude Code plugin.json: kebab-case name, version = package.json's, no server of its own, an icon file", () => {
    const m = read(`${PLUGIN_DIR}/.claude-plugin/plugin.json`);
    expect(m.name).toMatch(KEBAB);
    // setup and doctor find the installed plugin by this name (core/clients/claude-plugin.ts): a rename must follow there.
    expect(m.name).toBe(CLAUDE_PLUGIN_NAME);
    expect(m.version).toBe(VERSION);
    expect(m.description).toEqual(expect.any(String));
    // Claude Code also loads the plugin root's .mcp.json: an mcpServers here as well would register the server twice.
    expect(m).not.toHaveProperty("mcpServers");
    // The plugin directory wants a square PNG of 512–2048 px (what `claude plugin validate` asks for).
    const png = readFileSync(join(ROOT, PLUGIN_DIR, m.icon as string));
    expect(png.subarray(1, 4).toString()).toBe("PNG");
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([512, 512]);
  });

  it("one registration of the server: plugins/hostgate/.mcp.json, which both plugin manifests use and nothing repeats", () => {
    expect(read(PLUGIN_MCP_JSON)).toEqual({ mcpServers: { hostgate: SERVER } });
    expect(read(`${PLUGIN_DIR}/.codex-plugin/plugin.json`).mcpServers).toBe("./.mcp.json");
    // No other MCP registration anywhere in the plugin directory (a second .mcp.json, an inline one in a manifest).
    const found = spawnSync("grep", ["-rl", "--include=*.json", "mcpServers", join(ROOT, PLUGIN_DIR)], { encoding: "utf8" }).stdout.trim().split("\n").sort();
    expect(found).toEqual([join(ROOT, PLUGIN_MCP_JSON), join(ROOT, PLUGIN_DIR, ".codex-plugin/plugin.json")].sort());
  });

  it("Claude Code marketplace.json: names its owner and lists the plugin in plugins/hostgate (not the checkout) with the package's version", () => {
    const m = read(".claude-plugin/marketplace.json");
    expect(m.name).toMatch(KEBAB);
    expect((m.owner as Json).name).toEqual(expect.any(String));
    expect(m.plugins).toEqual([expect.objectContaining({ name: "hostgate", source: `./${PLUGIN_DIR}`, version: VERSION })]);
    // Issue 25: a local marketplace copies its plugin's source; the repository root (node_modules: gigabytes) was copied whole.
    const files = spawnSync("find", [join(ROOT, PLUGIN_DIR), "-type", "f", "-printf", "%s\n"], { encoding: "utf8" }).stdout.trim().split("\n").map(Number);
    expect(files.reduce((a, b) => a + b, 0)).toBeLessThan(1 << 20);
    expect(existsSync(join(ROOT, ".claude-plugin/plugin.json"))).toBe(false); // the root is a marketplace, not a plugin
  });

  it("Gemini CLI gemini-extension.json: name, version = package.json's, the MCP server", () => {
    const m = read("gemini-extension.json");
    expect(m.name).toMatch(KEBAB);
    expect(m.version).toBe(VERSION);
    expect(m.mcpServers).toEqual({ hostgate: SERVER });
  });

  it("Codex: the marketplace points at plugins/hostgate (the same directory as Claude Code's), whose manifest names its skills and .mcp.json", () => {
    const market = read(".agents/plugins/marketplace.json");
    expect(market.plugins).toEqual([expect.objectContaining({ name: "hostgate", source: { source: "local", path: `./${PLUGIN_DIR}` } })]);
    // Issue 25: no authentication policy. Codex's values (ON_INSTALL, ON_USE) say when a plugin's apps sign in;
    // hostgate has none to sign in to, and an omitted policy is Codex's default.
    expect((market.plugins as Json[])[0]!.policy).toEqual({ installation: "AVAILABLE" });
    const m = read(`${PLUGIN_DIR}/.codex-plugin/plugin.json`);
    expect(m.name).toMatch(KEBAB);
    expect(m.version).toMatch(SEMVER);
    expect(m.version).toBe(VERSION);
    expect(m.skills).toBe("./skills/");
    const icon = (m.interface as Json).logo as string;
    expect(existsSync(join(ROOT, PLUGIN_DIR, icon))).toBe(true);
  });

  it("every manifest and the plugin's one copy of skills/ and the icon are in step (scripts/sync-plugins.ts --check)", () => {
    expect(PLUGIN_COPIES.map((c) => c.file)).toEqual([`${PLUGIN_DIR}/skills`, `${PLUGIN_DIR}/assets/hostgate.png`]);
    expect(readdirSync(join(ROOT, "plugins"))).toEqual(["hostgate"]); // no second plugin directory with copies of its own
    expect(pluginDrift(ROOT)).toEqual([]);
    const r = spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "scripts/sync-plugins.ts"), "--check"], { cwd: ROOT, encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
  });

  it("a version bump or an edited skill is drift: --check names the files and how to fix them; a sync fixes them", () => {
    const dir = mkdtempSync(join(tmpdir(), "hg-plugins-"));
    try {
      for (const f of ["package.json", "skills", "docs/assets/hostgate.png", ...PLUGIN_MANIFESTS, PLUGIN_DIR]) cpSync(join(ROOT, f), join(dir, f), { recursive: true });
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Json;
      writeFileSync(join(dir, "package.json"), JSON.stringify({ ...pkg, version: "9.8.7" }));
      writeFileSync(join(dir, "skills", SKILLS[0]!, "SKILL.md"), "edited\n", { flag: "a" });
      const sync = (...a: string[]) => spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "scripts/sync-plugins.ts"), dir, ...a], { cwd: ROOT, encoding: "utf8" });
      const check = sync("--check");
      expect(check.status).toBe(1);
      for (const f of PLUGIN_MANIFESTS) expect(check.stderr).toContain(`${f}: `);
      expect(check.stderr).toContain(`${PLUGIN_DIR}/skills: not a copy of skills`);
      expect(check.stderr).toContain("run: npx tsx scripts/sync-plugins.ts");
      expect(sync().status).toBe(0);
      expect(sync("--check").status).toBe(0);
      expect((JSON.parse(readFileSync(join(dir, ".claude-plugin/marketplace.json"), "utf8")) as { plugins: Json[] }).plugins[0]!.version).toBe("9.8.7");
      expect(readFileSync(join(dir, PLUGIN_DIR, "skills", SKILLS[0]!, "SKILL.md"), "utf8")).toMatch(/edited\n$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a plugin skills/ that links to the top-level skills/ is drift (Codex drops links when it installs); a sync puts a copy back", () => {
    const dir = mkdtempSync(join(tmpdir(), "hg-plugins-"));
    try {
      for (const f of ["package.json", "skills", "docs/assets/hostgate.png", ...PLUGIN_MANIFESTS, PLUGIN_DIR]) cpSync(join(ROOT, f), join(dir, f), { recursive: true });
      rmSync(join(dir, PLUGIN_DIR, "skills"), { recursive: true });
      symlinkSync("../../skills", join(dir, PLUGIN_DIR, "skills"));
      const sync = (...a: string[]) => spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "scripts/sync-plugins.ts"), dir, ...a], { cwd: ROOT, encoding: "utf8" });
      const check = sync("--check");
      expect(check.status).toBe(1);
      expect(check.stderr).toContain(`${PLUGIN_DIR}/skills: a symbolic link, which Codex drops when it installs the plugin: a copy of skills is needed`);
      expect(sync().status).toBe(0);
      expect(sync("--check").status).toBe(0);
      expect(lstatSync(join(dir, PLUGIN_DIR, "skills")).isDirectory()).toBe(true);
      expect(readdirSync(join(dir, PLUGIN_DIR, "skills")).sort()).toEqual(SKILLS);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// ── the real clients ──────────────────────────────────────────────────────────────────────────────────────────

const CLAUDE = { pkg: "@anthropic-ai/claude-code", bin: "claude" };
const GEMINI = { pkg: "@google/gemini-cli", bin: "gemini" };
const CODEX = { pkg: "@openai/codex", bin: "codex" };
const noBuild = peerMissing("plugins loaded by real clients", existsSync(join(ROOT, "dist", "hostgate.js")) ? null : "no build in dist/ (npm run build)");

let ws: Workspace | undefined;
afterEach(() => { ws?.remove(); ws = undefined; });

/** A fresh workspace whose PATH starts with a bin/ holding `hostgate` (this checkout's launcher), the embedded daemon pinned. */
function workspace(label: string): Workspace {
  ws = makeWorkspace(label);
  const bin = join(ws.root, "bin");
  mkdirSync(bin);
  symlinkSync(join(ROOT, "bin", "hostgate.js"), join(bin, "hostgate"));
  ws.env.PATH = `${bin}:${ws.env.PATH}`;
  ws.env.HOSTGATE_DAEMON = "embedded";
  ws.env.HOSTGATE_CONFIG = ws.configPath;
  return ws;
}

async function run(c: ClientPackage, args: string[], w: Workspace, timeoutMs = 120_000): Promise<string> {
  const r = await runClient(clientBin(c), args, w.env, w.cwd, timeoutMs);
  if (r.code !== 0 || r.timedOut) throw new Error(`${c.bin} ${args.join(" ")} exited ${r.code}${r.timedOut ? " (timed out)" : ""}:\n${r.stdout}\n${r.stderr}`);
  return r.stdout + r.stderr;
}

describe.skipIf(noBuild || clientMissing(CLAUDE))("Claude Code loads the plugin", () => {
  it("claude plugin validate --strict passes the plugin and the marketplace, and sees the server once and the six skills", async () => {
    const w = workspace("claude-validate");
    for (const target of [`${PLUGIN_DIR}/.claude-plugin/plugin.json`, ".claude-plugin/marketplace.json"]) {
      const report = JSON.parse(await run(CLAUDE, ["plugin", "validate", "--strict", "--json", join(ROOT, target)], w)) as { success: boolean; manifest: { errors: unknown[]; warnings: unknown[] }; provides: { mcpServers: Json[]; skills: string[] }; hosts?: { named: string[]; declared: { plugin: boolean } } };
      expect(report.success, target).toBe(true);
      expect(report.manifest.errors).toEqual([]);
      expect(report.manifest.warnings).toEqual([]);
      if (target.endsWith("marketplace.json")) continue; // a marketplace report lists no parts
      expect(report.provides.mcpServers).toEqual([expect.objectContaining({ name: "hostgate", type: "stdio", target: "hostgate", args: ["mcp"] })]);
      expect(report.provides.skills.sort()).toEqual(SKILLS.map((s) => `hostgate:${s}`));
      // Issue 25 re-trial 7: plugin.json declares the network hosts it reaches (network.hosts): none, only the local daemon.
      expect(report.hosts?.declared.plugin).toBe(true);
      expect(report.hosts?.named).toEqual([]);
      expect(await run(CLAUDE, ["plugin", "validate", "--strict", join(ROOT, target)], w)).not.toMatch(/Hosts not declared/);
    }
  }, 240_000);

  it("installs from the marketplace in this checkout; claude mcp list connects to hostgate mcp", async () => {
    const w = workspace("claude-install");
    await run(CLAUDE, ["plugin", "marketplace", "add", ROOT], w);
    await run(CLAUDE, ["plugin", "install", "hostgate@hostgate"], w);
    expect(await run(CLAUDE, ["plugin", "list"], w)).toMatch(new RegExp(`hostgate@hostgate\\s+Version: ${VERSION.replaceAll(".", "\\.")}`));
    // Once: Claude Code reads the plugin root's .mcp.json (the plugin's only registration) and would list a second
    // registration of the same server (plugin.json's mcpServers) beside it.
    expect(await run(CLAUDE, ["plugin", "details", "hostgate@hostgate"], w)).toMatch(/MCP servers \(1\)\s+hostgate\s/);
    const servers = (await run(CLAUDE, ["mcp", "list"], w)).split("\n").filter((l) => l.includes("hostgate mcp"));
    expect(servers).toEqual([expect.stringMatching(/^plugin:hostgate:hostgate: hostgate mcp - ✔ Connected/)]);
  }, 240_000);
});

describe.skipIf(noBuild || clientMissing(GEMINI))("Gemini CLI loads the extension", () => {
  it("validates and links it; lists the server and the six skills; connects to hostgate mcp in a trusted folder", async () => {
    const w = workspace("gemini");
    expect(await run(GEMINI, ["extensions", "validate", ROOT], w)).toMatch(/successfully validated/);
    await run(GEMINI, ["extensions", "link", ROOT, "--consent"], w);
    const list = await run(GEMINI, ["extensions", "list"], w);
    expect(list).toContain(`hostgate (${VERSION})`);
    expect(list).toMatch(/MCP servers:\s+hostgate/);
    for (const s of SKILLS) expect(list).toContain(`  ${s}: `);
    // Folder Trust (on by default) would disable every MCP server in an untrusted folder: this one is trusted.
    writeFileSync(join(w.home, ".gemini", "trustedFolders.json"), JSON.stringify({ [w.cwd]: "TRUST_FOLDER" }));
    expect(await run(GEMINI, ["mcp", "list"], w)).toMatch(/✓ hostgate \(from hostgate\): hostgate mcp \(stdio\) - Connected/);
  }, 240_000);
});

describe.skipIf(noBuild || clientMissing(GEMINI))("Gemini CLI folder trust (issue 25: what setup and doctor advise)", () => {
  it("a folder marked untrusted disables the server; GEMINI_CLI_TRUST_WORKSPACE=true connects it, GEMINI_TRUST_WORKSPACE does not", async () => {
    const w = workspace("gemini-trust");
    await run(GEMINI, ["extensions", "link", ROOT, "--consent"], w);
    // No settings key (Folder Trust on, its default) and the folder marked untrusted, as "Don't trust" in gemini's
    // dialog leaves it. (With no rule at all, `gemini mcp list` connects: only an interactive start asks.)
    writeFileSync(join(w.home, ".gemini", "trustedFolders.json"), JSON.stringify({ [w.cwd]: "DO_NOT_TRUST" }));
    const line = (out: string): string => out.split("\n").find((l) => l.includes("hostgate (from hostgate)")) ?? out;
    const untrusted = line(await run(GEMINI, ["mcp", "list"], w));
    expect(untrusted).not.toMatch(/Connected/);
    const wrongName = line(await run(GEMINI, ["mcp", "list"], { ...w, env: { ...w.env, GEMINI_TRUST_WORKSPACE: "true" } }));
    expect(wrongName).not.toMatch(/Connected/);
    const trusted = line(await run(GEMINI, ["mcp", "list"], { ...w, env: { ...w.env, GEMINI_CLI_TRUST_WORKSPACE: "true" } }));
    expect(trusted).toMatch(/✓ hostgate \(from hostgate\): hostgate mcp \(stdio\) - Connected/);
  }, 300_000);
});

describe.skipIf(noBuild || clientMissing(CODEX))("Codex installs the plugin", () => {
  it("adds the marketplace, installs hostgate@hostgate with its skills, and lists its MCP server", async () => {
    const w = workspace("codex");
    w.env.CODEX_HOME = join(w.home, ".codex");
    mkdirSync(w.env.CODEX_HOME);
    await run(CODEX, ["plugin", "marketplace", "add", ROOT], w);
    await run(CODEX, ["plugin", "add", "hostgate@hostgate"], w);
    const listed = JSON.parse((await runClient(clientBin(CODEX), ["plugin", "list", "--json"], w.env, w.cwd, 60_000)).stdout) as { installed: Json[] };
    expect(listed.installed).toEqual([expect.objectContaining({ pluginId: "hostgate@hostgate", version: VERSION, installed: true, enabled: true })]);
    const cache = join(w.env.CODEX_HOME, "plugins", "cache", "hostgate", "hostgate", VERSION);
    for (const s of SKILLS) expect(existsSync(join(cache, "skills", s, "SKILL.md")), s).toBe(true);
    const servers = JSON.parse((await runClient(clientBin(CODEX), ["mcp", "list", "--json"], w.env, w.cwd, 60_000)).stdout) as Json[];
    expect(servers.map((s) => [s.name, s.enabled])).toEqual([["hostgate", true]]);
    expect(servers[0]!.transport).toMatchObject({ type: "stdio", command: "hostgate", args: ["mcp"] });
  }, 240_000);
});
