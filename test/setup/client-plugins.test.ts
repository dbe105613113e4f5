// Issue 25 leftovers: doctor and setup saw Claude Code's plugin but not Codex's plugin or Gemini CLI's extension:
// doctor said "no hostgate entry" and `setup --codex`/`--gemini` wrote a same-name entry that replaced the plugin's
// server. Real codex and gemini CLIs (test/clients) in a fresh HOME install this checkout's plugin / link its
// extension (their own files: config.toml's [plugins."hostgate@hostgate"], ~/.gemini/extensions/hostgate/), then
// hostgate setup and doctor read them; the clients' own listings say which server they would run.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parse as parseToml } from "smol-toml";
import { afterEach, describe, expect, it } from "vitest";
import { clientBin, clientMissing, makeWorkspace, runClient, type ClientPackage, type Workspace } from "../clients/harness.ts";
import { HOSTGATE_BIN } from "../helpers/hostgate.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const CODEX = { pkg: "@openai/codex", bin: "codex" };
const GEMINI = { pkg: "@google/gemini-cli", bin: "gemini" };
const noBuild = !existsSync(join(ROOT, "dist", "hostgate.js"));

let ws: Workspace | undefined;
afterEach(() => { ws?.remove(); ws = undefined; });

function workspace(label: string): Workspace {
  const w = (ws = makeWorkspace(label));
  w.env.CODEX_HOME = join(w.home, ".codex");
  mkdirSync(w.env.CODEX_HOME);
  return w;
}

async function client(c: ClientPackage, w: Workspace, args: string[]): Promise<string> {
  const r = await runClient(clientBin(c), args, w.env, w.cwd, 120_000);
  if (r.code !== 0) throw new Error(`${c.bin} ${args.join(" ")} exited ${r.code}:\n${r.stdout}\n${r.stderr}`);
  return r.stdout + r.stderr;
}

function hostgate(w: Workspace, args: string[]): { status: number | null; out: string } {
  const r = spawnSync(process.execPath, [HOSTGATE_BIN, ...args], { cwd: w.cwd, env: { ...w.env, HOSTGATE_CONFIG: w.configPath, HOSTGATE_CONFIG_DIR: join(w.root, "etc"), HOSTGATE_DAEMON: "embedded" }, encoding: "utf8", timeout: 120_000 });
  return { status: r.status, out: r.stdout + r.stderr };
}

type Check = { name: string; status: string; detail: string; fix?: string };
function doctor(w: Workspace): Check[] {
  const d = hostgate(w, ["doctor", "--json"]);
  return (JSON.parse(d.out.slice(d.out.indexOf("{"))) as { checks: Check[] }).checks;
}

/** The servers `codex mcp list --json` lists: name and command (the plugin's is `hostgate mcp`, setup's node + script). */
async function codexServers(w: Workspace): Promise<[string, string][]> {
  const r = await runClient(clientBin(CODEX), ["mcp", "list", "--json"], w.env, w.cwd, 60_000);
  return (JSON.parse(r.stdout) as { name: string; transport: { command: string } }[]).map((s) => [s.name, s.transport.command]);
}

const codexEntry = (w: Workspace): unknown => (parseToml(readFileSync(join(w.home, ".codex", "config.toml"), "utf8")) as { mcp_servers?: Record<string, unknown> }).mcp_servers?.hostgate;
const geminiEntry = (w: Workspace): unknown => {
  const file = join(w.home, ".gemini", "settings.json");
  return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as { mcpServers?: Record<string, unknown> }).mcpServers?.hostgate : undefined;
};

describe.skipIf(noBuild || clientMissing(CODEX))("hostgate setup and doctor with the Codex plugin installed", () => {
  it("setup --codex skips its entry, naming the plugin and how to switch; doctor's line names the plugin; removed, setup writes it", async () => {
    const w = workspace("codex-plugin-setup");
    const file = join(w.home, ".codex", "config.toml");
    await client(CODEX, w, ["plugin", "marketplace", "add", ROOT]);
    await client(CODEX, w, ["plugin", "add", "hostgate@hostgate"]);
    const r = hostgate(w, ["setup", "--yes", "--codex"]);
    expect(r.status, r.out).toBe(0);
    expect(r.out).toContain(`- Codex CLI: ${file}: skipped: Codex CLI already runs hostgate from its plugin hostgate@hostgate (installed, ${file}); an entry of setup's named hostgate would replace the plugin's server`);
    expect(r.out).toContain("to use setup's entry instead: codex plugin remove hostgate@hostgate, then run this again");
    expect(codexEntry(w)).toBeUndefined();
    expect(await codexServers(w)).toEqual([["hostgate", "hostgate"]]); // the plugin's server, not replaced
    expect(doctor(w).find((c) => c.name === "Codex CLI")).toMatchObject({ status: "ok", detail: `hostgate runs from the plugin hostgate@hostgate (installed, ${file}); no entry of setup's is needed` });
    // The way the note names: the plugin removed (Codex's own command), setup writes its entry.
    await client(CODEX, w, ["plugin", "remove", "hostgate@hostgate"]);
    const again = hostgate(w, ["setup", "--yes", "--codex"]);
    expect(again.status, again.out).toBe(0);
    expect(again.out).not.toContain("skipped");
    expect(codexEntry(w)).toBeDefined();
    expect(await codexServers(w)).toEqual([["hostgate", process.execPath]]);
  }, 300_000);

  it("doctor warns when setup's entry replaces the plugin's server, naming how to remove one; the fix works", async () => {
    const w = workspace("codex-plugin-doctor");
    expect(hostgate(w, ["setup", "--yes", "--codex"]).status).toBe(0);
    await client(CODEX, w, ["plugin", "marketplace", "add", ROOT]);
    await client(CODEX, w, ["plugin", "add", "hostgate@hostgate"]);
    expect(await codexServers(w)).toEqual([["hostgate", process.execPath]]); // what the re-trial saw: the plugin's is gone
    const both = doctor(w).find((c) => c.name === "Codex CLI plugin");
    expect(both).toMatchObject({ status: "warn", fix: "keep one: codex mcp remove hostgate (hostgate setup's entry), or codex plugin remove hostgate@hostgate (the plugin)" });
    expect(both!.detail).toContain(`the hostgate entry in ${join(w.home, ".codex", "config.toml")} replaces the server of the plugin hostgate@hostgate`);
    const s = hostgate(w, ["setup", "--yes", "--codex"]);
    expect(s.out).toContain("skipped: Codex CLI already runs hostgate from its plugin hostgate@hostgate");
    expect(s.out).toContain("already has a hostgate entry beside the plugin: keep one: codex mcp remove hostgate");
    await client(CODEX, w, ["mcp", "remove", "hostgate"]);
    expect(await codexServers(w)).toEqual([["hostgate", "hostgate"]]);
    const after = doctor(w);
    expect(after.find((c) => c.name === "Codex CLI plugin")).toBeUndefined();
    expect(after.find((c) => c.name === "Codex CLI")).toMatchObject({ status: "ok" });
  }, 300_000);
});

describe.skipIf(noBuild || clientMissing(GEMINI))("hostgate setup and doctor with the Gemini CLI extension linked", () => {
  it("setup --gemini skips its entry, naming the extension; doctor's line names it; turned off for this folder, setup writes it", async () => {
    const w = workspace("gemini-ext-setup");
    const dir = join(w.home, ".gemini", "extensions", "hostgate");
    await client(GEMINI, w, ["extensions", "link", ROOT, "--consent"]);
    const r = hostgate(w, ["setup", "--yes", "--gemini"]);
    expect(r.status, r.out).toBe(0);
    expect(r.out).toContain(`skipped: Gemini CLI already runs hostgate from its extension hostgate (linked from ${ROOT}, ${dir}); an entry of setup's named hostgate in settings.json would replace the extension's server`);
    expect(r.out).toContain("to use setup's entry instead: gemini extensions uninstall hostgate, then run this again");
    expect(geminiEntry(w)).toBeUndefined();
    const checks = doctor(w);
    expect(checks.find((c) => c.name === "Gemini CLI")).toMatchObject({ status: "ok", detail: `hostgate runs from the extension hostgate (linked from ${ROOT}, ${dir}); no entry of setup's is needed` });
    // Folder Trust decides for the extension's server too: doctor says where this folder stands.
    expect(checks.find((c) => c.name === "Gemini CLI folder trust")).toBeDefined();
    // Turned off for this folder (gemini's own command, workspace scope): setup writes its entry.
    await client(GEMINI, w, ["extensions", "disable", "hostgate", "--scope", "workspace"]);
    expect(await client(GEMINI, w, ["extensions", "list"])).toMatch(/✗ hostgate/);
    const again = hostgate(w, ["setup", "--yes", "--gemini"]);
    expect(again.status, again.out).toBe(0);
    expect(again.out).not.toContain("skipped");
    expect(geminiEntry(w)).toBeDefined();
  }, 300_000);

  it("doctor warns when setup's entry replaces the extension's server, naming how to remove one; the fix works", async () => {
    const w = workspace("gemini-ext-doctor");
    expect(hostgate(w, ["setup", "--yes", "--gemini"]).status).toBe(0);
    await client(GEMINI, w, ["extensions", "link", ROOT, "--consent"]);
    // What the re-trial saw: gemini keeps the settings entry of that name, the extension's is not listed.
    expect(await client(GEMINI, w, ["mcp", "list"])).not.toContain("hostgate (from hostgate)");
    const both = doctor(w).find((c) => c.name === "Gemini CLI extension");
    expect(both).toMatchObject({ status: "warn", fix: "keep one: gemini mcp remove --scope user hostgate (hostgate setup's entry), or gemini extensions uninstall hostgate (the extension)" });
    expect(both!.detail).toContain(`the hostgate entry in ${join(w.home, ".gemini", "settings.json")} replaces the server of the extension hostgate`);
    const s = hostgate(w, ["setup", "--yes", "--gemini"]);
    expect(s.out).toContain("skipped: Gemini CLI already runs hostgate from its extension hostgate");
    expect(s.out).toContain("already has a hostgate entry beside the extension: keep one: gemini mcp remove --scope user hostgate");
    await client(GEMINI, w, ["mcp", "remove", "--scope", "user", "hostgate"]);
    expect(await client(GEMINI, w, ["mcp", "list"])).toContain("hostgate (from hostgate)");
    const after = doctor(w);
    expect(after.find((c) => c.name === "Gemini CLI extension")).toBeUndefined();
    expect(after.find((c) => c.name === "Gemini CLI")).toMatchObject({ status: "ok" });
  }, 300_000);
});
