import { describe, expect, it } from "vitest";
import { codexPluginInstalls } from "./codex-plugin.ts";

// The shape is what the real codex CLI (0.171.0) wrote into config.toml after `codex plugin marketplace add <checkout>`
// + `codex plugin add hostgate@hostgate`; test/setup/client-plugins.test.ts reads the real file.
const config = (tables: Record<string, unknown>) => ({ marketplaces: { hostgate: { source_type: "local", source: "/src" } }, plugins: tables });

describe("codexPluginInstalls", () => {
  it("an installed plugin named hostgate, from any marketplace, is found unless enabled = false", () => {
    expect(codexPluginInstalls(config({ "hostgate@hostgate": { enabled: true } }))).toEqual([{ id: "hostgate@hostgate" }]);
    expect(codexPluginInstalls(config({ "hostgate@acme": {} }))).toEqual([{ id: "hostgate@acme" }]);
    expect(codexPluginInstalls(config({ "hostgate@hostgate": { enabled: false } }))).toEqual([]);
  });

  it("other plugins, and files of another shape, are nothing", () => {
    expect(codexPluginInstalls(config({ "hostgate-extra@hostgate": { enabled: true }, "other@hostgate": { enabled: true } }))).toEqual([]);
    for (const bad of [null, "text", {}, { plugins: [] }, { plugins: { "hostgate@hostgate": true } }]) expect(codexPluginInstalls(bad)).toEqual([]);
  });
});
