import { describe, expect, it } from "vitest";
import { claudePluginInstalls } from "./claude-plugin.ts";

// The shapes are what the real claude CLI (2.1.332) wrote in a fresh HOME after `claude plugin marketplace add
// <checkout>` + `claude plugin install hostgate@hostgate`; test/setup/claude-plugin.test.ts reads the real files.
const record = (over: Record<string, unknown> = {}) => ({ scope: "user", installPath: "/h/.claude/plugins/cache/hostgate/hostgate/0.1.0", version: "0.1.0", installedAt: "2026-12-02T11:38:51.633Z", ...over });

describe("claudePluginInstalls", () => {
  it("a user-scoped install, enabled: found, whatever the marketplace is called", () => {
    expect(claudePluginInstalls({ version: 2, plugins: { "hostgate@hostgate": [record()] } }, { enabledPlugins: { "hostgate@hostgate": true } }, "/p"))
      .toEqual([{ id: "hostgate@hostgate", scope: "user", version: "0.1.0" }]);
    expect(claudePluginInstalls({ plugins: { "hostgate@acme-tools": [record()] } }, {}, "/p").map((i) => i.id)).toEqual(["hostgate@acme-tools"]);
  });

  it("turned off in settings.json, another plugin, or a project install of another folder: not found", () => {
    expect(claudePluginInstalls({ plugins: { "hostgate@hostgate": [record()] } }, { enabledPlugins: { "hostgate@hostgate": false } }, "/p")).toEqual([]);
    expect(claudePluginInstalls({ plugins: { "hostgate-extra@hostgate": [record()], "other@hostgate": [record()] } }, {}, "/p")).toEqual([]);
    expect(claudePluginInstalls({ plugins: { "hostgate@hostgate": [record({ scope: "project", projectPath: "/elsewhere" })] } }, {}, "/p")).toEqual([]);
    expect(claudePluginInstalls({ plugins: { "hostgate@hostgate": [record({ scope: "local", projectPath: "/p" })] } }, {}, "/p").map((i) => i.scope)).toEqual(["local"]);
  });

  it("files that are missing or of another shape count as nothing installed", () => {
    for (const bad of [null, {}, { plugins: [] }, { plugins: { "hostgate@hostgate": "x" } }, "text"]) expect(claudePluginInstalls(bad, null, "/p")).toEqual([]);
  });
});
