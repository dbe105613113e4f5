// Issue 25 re-trial 2: Claude Code registered hostgate twice when the user installed the plugin AND ran
// `hostgate setup --claude`. Real claude CLI (test/clients) in a fresh HOME: `claude plugin marketplace add <this
// checkout>` + `claude plugin install hostgate@hostgate` write Claude Code's own installed_plugins.json and
// settings.json, which setup and doctor then read.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { clientBin, clientMissing, makeWorkspace, runClient, type Workspace } from "../clients/harness.ts";
import { HOSTGATE_BIN } from "../helpers/hostgate.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const CLAUDE = { pkg: "@anthropic-ai/claude-code", bin: "claude" };
const noBuild = !existsSync(join(ROOT, "dist", "hostgate.js"));

let ws: Workspace | undefined;
afterEach(() => { ws?.remove(); ws = undefined; });

async function claude(w: Workspace, args: string[]): Promise<string> {
  const r = await runClient(clientBin(CLAUDE), args, w.env, w.cwd, 120_000);
  if (r.code !== 0) throw new Error(`claude ${args.join(" ")} exited ${r.code}:\n${r.stdout}\n${r.stderr}`);
  return r.stdout + r.stderr;
}

function hostgate(w: Workspace, args: string[]): { status: number | null; out: string } {
  const r = spawnSync(process.execPath, [HOSTGATE_BIN, ...args], { cwd: w.cwd, env: { ...w.env, HOSTGATE_CONFIG: w.configPath, HOSTGATE_CONFIG_DIR: join(w.root, "etc"), HOSTGATE_DAEMON: "embedded" }, encoding: "utf8", timeout: 120_000 });
  return { status: r.status, out: r.stdout + r.stderr };
}

/** The hostgate entry of ~/.claude.json (setup's user-scope file), or undefined. */
function userEntry(w: Workspace): unknown {
  const file = join(w.home, ".claude.json");
  return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as { mcpServers?: Record<string, unknown> }).mcpServers?.hostgate : undefined;
}

describe.skipIf(noBuild || clientMissing(CLAUDE))("hostgate setup and doctor with the Claude Code plugin installed", () => {
  it("setup --claude skips its entry, saying the plugin has it and how to switch; without the plugin it writes one", async () => {
    const w = (ws = makeWorkspace("claude-plugin-setup"));
    await claude(w, ["plugin", "marketplace", "add", ROOT]);
    await claude(w, ["plugin", "install", "hostgate@hostgate"]);
    expect(existsSync(join(w.home, ".claude", "plugins", "installed_plugins.json"))).toBe(true);
    const r = hostgate(w, ["setup", "--yes", "--claude", "--scope", "user"]);
    expect(r.status, r.out).toBe(0);
    expect(r.out).toContain(`skipped: Claude Code already runs hostgate from its plugin hostgate@hostgate (user scope, ${join(w.home, ".claude", "plugins", "installed_plugins.json")})`);
    expect(r.out).toContain("to use setup's entry instead: claude plugin uninstall hostgate@hostgate, then run this again");
    expect(userEntry(w)).toBeUndefined();
    // doctor sees the plugin too: no "has no hostgate entry" warning whose fix (setup) would only skip again.
    const d = hostgate(w, ["doctor", "--json"]);
    const checks = (JSON.parse(d.out.slice(d.out.indexOf("{"))) as { checks: { name: string; status: string; detail: string; fix?: string }[] }).checks;
    expect(checks.find((c) => c.name === "Claude Code (user)"), JSON.stringify(checks)).toMatchObject({ status: "ok", detail: `hostgate runs from the plugin hostgate@hostgate (user scope, ${join(w.home, ".claude", "plugins", "installed_plugins.json")}); no entry of setup's is needed` });
    // The plugin turned off (Claude Code's own command): setup writes its entry.
    await claude(w, ["plugin", "disable", "hostgate@hostgate"]);
    const again = hostgate(w, ["setup", "--yes", "--claude", "--scope", "user"]);
    expect(again.status, again.out).toBe(0);
    expect(again.out).not.toContain("skipped");
    expect(userEntry(w)).toBeDefined();
  }, 300_000);

  it("doctor warns when both are there, naming both and how to remove one", async () => {
    const w = (ws = makeWorkspace("claude-plugin-doctor"));
    // setup first (no plugin yet): the entry is written; then the plugin: both, as the re-trial had them.
    expect(hostgate(w, ["setup", "--yes", "--claude", "--scope", "user"]).status).toBe(0);
    await claude(w, ["plugin", "marketplace", "add", ROOT]);
    await claude(w, ["plugin", "install", "hostgate@hostgate"]);
    const d = hostgate(w, ["doctor", "--json"]);
    const checks = (JSON.parse(d.out.slice(d.out.indexOf("{"))) as { checks: { name: string; status: string; detail: string; fix?: string }[] }).checks;
    const twice = checks.find((c) => c.name === "Claude Code plugin");
    expect(twice, JSON.stringify(checks)).toMatchObject({ status: "warn" });
    expect(twice!.detail).toContain(`the plugin hostgate@hostgate (user scope, ${join(w.home, ".claude", "plugins", "installed_plugins.json")}) and the hostgate entry in ${join(w.home, ".claude.json")}`);
    expect(twice!.fix).toBe("keep one: claude mcp remove hostgate --scope user (hostgate setup's entry), or claude plugin uninstall hostgate@hostgate (the plugin)");
    // setup run again now keeps the file as it is and repeats the advice.
    const s = hostgate(w, ["setup", "--yes", "--claude", "--scope", "user"]);
    expect(s.out).toMatch(/skipped: Claude Code already runs hostgate from its plugin/);
    expect(s.out).toContain(`${join(w.home, ".claude.json")} already has a hostgate entry beside the plugin: keep one: claude mcp remove hostgate --scope user`);
    // The fix it names works: after it, doctor has nothing to say about the plugin.
    await claude(w, ["mcp", "remove", "hostgate", "--scope", "user"]);
    const after = hostgate(w, ["doctor", "--json"]);
    expect(after.out).not.toContain("registered twice");
  }, 300_000);

  it("the project's .claude/settings.local.json and .claude/settings.json turn the plugin off or on over the user's settings", async () => {
    const w = (ws = makeWorkspace("claude-plugin-project"));
    await claude(w, ["plugin", "marketplace", "add", ROOT]);
    await claude(w, ["plugin", "install", "hostgate@hostgate"]);
    // Off for this project only (Claude Code's own command writes .claude/settings.local.json): Claude Code lists no
    // plugin server here, so setup writes its entry and doctor does not call it a second registration.
    await claude(w, ["plugin", "disable", "hostgate@hostgate", "--scope", "local"]);
    expect(JSON.parse(readFileSync(join(w.cwd, ".claude", "settings.local.json"), "utf8"))).toMatchObject({ enabledPlugins: { "hostgate@hostgate": false } });
    expect(await claude(w, ["mcp", "list"])).not.toContain("plugin:hostgate:hostgate");
    const off = hostgate(w, ["setup", "--yes", "--claude", "--scope", "user"]);
    expect(off.status, off.out).toBe(0);
    expect(off.out).not.toContain("skipped");
    expect(userEntry(w)).toBeDefined();
    expect(hostgate(w, ["doctor", "--json"]).out).not.toContain("registered twice");
    // Back to setup's entry removed, the local choice gone; then off for the user but on in the project's shared
    // settings (.claude/settings.json): the project wins, Claude Code runs the plugin here, setup skips again.
    await claude(w, ["mcp", "remove", "hostgate", "--scope", "user"]);
    rmSync(join(w.cwd, ".claude", "settings.local.json"));
    await claude(w, ["plugin", "disable", "hostgate@hostgate", "--scope", "user"]);
    await claude(w, ["plugin", "enable", "hostgate@hostgate", "--scope", "project"]);
    expect(JSON.parse(readFileSync(join(w.cwd, ".claude", "settings.json"), "utf8"))).toMatchObject({ enabledPlugins: { "hostgate@hostgate": true } });
    expect(await claude(w, ["mcp", "list"])).toContain("plugin:hostgate:hostgate");
    const on = hostgate(w, ["setup", "--yes", "--claude", "--scope", "user"]);
    expect(on.status, on.out).toBe(0);
    expect(on.out).toContain("skipped: Claude Code already runs hostgate from its plugin hostgate@hostgate");
    expect(userEntry(w)).toBeUndefined();
  }, 300_000);
});

