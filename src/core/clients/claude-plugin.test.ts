import { describe, expect, it } from "vitest";
import { claudePluginEnabled, claudePluginInstalls } from "./claude-plugin.ts";

// The shapes are what the real claude CLI (2.1.332) wrote in a fresh HOME after `claude plugin marketplace add
// <checkout>` + `claude plugin install hostgate@hostgate`; test/setup/claude-plugin.test.ts reads the real files.
const record = (over: Record<string, unknown> = {}) => ({ scope: "user", installPath: "/h/.claude/plugins/cache/hostgate/hostgate/0.1.0", version: "0.1.0", installedAt: "2026-12-02T11:38:51.633Z", ...over });
const on = (v: unknown) => ({ enabledPlugins: { "hostgate@hostgate": v } });

describe("claudePluginInstalls", () => {
  it("a user-scoped install, enabled: found, whatever the marketplace is called", () => {
    expect(claudePluginInstalls({ version: 2, plugins: { "hostgate@hostgate": [record()] } }, [on(true)], "/p"))
      .toEqual([{ id: "hostgate@hostgate", scope: "user", version: "0.1.0" }]);
    expect(claudePluginInstalls({ plugins: { "hostgate@acme-tools": [record()] } }, [{}], "/p").map((i) => i.id)).toEqual(["hostgate@acme-tools"]);
  });

  it("turned off in settings.json, another plugin, or a project install of another folder: not found", () => {
    expect(claudePluginInstalls({ plugins: { "hostgate@hostgate": [record()] } }, [on(false)], "/p")).toEqual([]);
    expect(claudePluginInstalls({ plugins: { "hostgate-extra@hostgate": [record()], "other@hostgate": [record()] } }, [], "/p")).toEqual([]);
    expect(claudePluginInstalls({ plugins: { "hostgate@hostgate": [record({ scope: "project", projectPath: "/elsewhere" })] } }, [], "/p")).toEqual([]);
    expect(claudePluginInstalls({ plugins: { "hostgate@hostgate": [record({ scope: "local", projectPath: "/p" })] } }, [], "/p").map((i) => i.scope)).toEqual(["local"]);
  });

  it("files that are missing or of another shape count as nothing installed", () => {
    for (const bad of [null, {}, { plugins: [] }, { plugins: { "hostgate@hostgate": "x" } }, "text"]) expect(claudePluginInstalls(bad, [null], "/p")).toEqual([]);
  });

  it("the project's settings turn the user's plugin off or on (local > project > user)", () => {
    const installed = { plugins: { "hostgate@hostgate": [record()] } };
    // [local, project, user], as cli/client-plugins.ts reads them.
    expect(claudePluginInstalls(installed, [on(false), null, on(true)], "/p")).toEqual([]);
    expect(claudePluginInstalls(installed, [null, on(false), on(true)], "/p")).toEqual([]);
    expect(claudePluginInstalls(installed, [null, on(true), on(false)], "/p")).toHaveLength(1);
    expect(claudePluginInstalls(installed, [on(true), on(false), on(false)], "/p")).toHaveLength(1);
  });
});

describe("claudePluginEnabled", () => {
  it("the first file holding a boolean decides; files without one, or with another value, fall through; none: on", () => {
    expect(claudePluginEnabled("hostgate@hostgate", [])).toBe(true);
    expect(claudePluginEnabled("hostgate@hostgate", [{ enabledPlugins: { "other@x": false } }, on(false)])).toBe(false);
    expect(claudePluginEnabled("hostgate@hostgate", [on("no"), { enabledPlugins: [] }, "text", on(true)])).toBe(true);
    expect(claudePluginEnabled("hostgate@hostgate", [on("no"), on(null)])).toBe(true);
  });
});
