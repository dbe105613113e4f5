import { describe, expect, it } from "vitest";
import { geminiExtensionEnabled, geminiHostgateExtensions, manifestDir } from "./gemini-extension.ts";

// The shapes are what the real gemini CLI (0.61.0) wrote under ~/.gemini/extensions after `gemini extensions link
// <checkout> --consent`, `extensions disable hostgate [--scope workspace]` and `extensions enable hostgate`;
// test/setup/client-plugins.test.ts reads the real files.
const manifest = { name: "hostgate", version: "0.1.0", mcpServers: { hostgate: { command: "hostgate", args: ["mcp"] } } };
const rules = (...overrides: string[]) => ({ hostgate: { overrides } });

describe("geminiExtensionEnabled", () => {
  it("no rule: on; the last matching rule wins; `*` covers subfolders; a rule for another folder says nothing", () => {
    expect(geminiExtensionEnabled(null, "hostgate", "/w/p")).toBe(true);
    expect(geminiExtensionEnabled(rules("/h/*"), "hostgate", "/w/p")).toBe(true);
    expect(geminiExtensionEnabled(rules("!/h/*"), "hostgate", "/w/p")).toBe(true); // the user scope is the home's subtree
    expect(geminiExtensionEnabled(rules("!/h/*"), "hostgate", "/h/p")).toBe(false);
    expect(geminiExtensionEnabled(rules("!/h/*", "!/w/p/*"), "hostgate", "/w/p")).toBe(false);
    expect(geminiExtensionEnabled(rules("!/w/p/*"), "hostgate", "/w/p/sub/dir")).toBe(false);
    expect(geminiExtensionEnabled(rules("!/w/p/*", "/w/p/*"), "hostgate", "/w/p")).toBe(true);
    expect(geminiExtensionEnabled(rules("!/w/p/"), "hostgate", "/w/p/sub")).toBe(true); // no `*`: that folder only
    expect(geminiExtensionEnabled(rules("!/w/p/"), "hostgate", "/w/p")).toBe(false);
    expect(geminiExtensionEnabled(rules("!/w/p.x/*"), "hostgate", "/w/pax")).toBe(true); // dots are literal
    expect(geminiExtensionEnabled({ other: { overrides: ["!/w/*"] } }, "hostgate", "/w/p")).toBe(true);
  });
});

describe("geminiHostgateExtensions", () => {
  it("an installed copy or a link whose manifest registers the hostgate server, when on here", () => {
    const linked = { dir: "/h/.gemini/extensions/hostgate", install: { source: "/src/hostgate", type: "link" }, manifest };
    expect(manifestDir(linked.dir, linked.install)).toBe("/src/hostgate");
    expect(geminiHostgateExtensions([linked], null, "/w/p")).toEqual([{ name: "hostgate", dir: linked.dir, from: "/src/hostgate", linked: true }]);
    const copy = { dir: "/h/.gemini/extensions/hostgate", install: { source: "https://github.com/hostgate/hostgate", type: "git" }, manifest };
    expect(manifestDir(copy.dir, copy.install)).toBe(copy.dir);
    expect(geminiHostgateExtensions([copy], null, "/w/p")).toEqual([{ name: "hostgate", dir: copy.dir, from: copy.dir, linked: false }]);
    expect(geminiHostgateExtensions([copy], rules("!/w/*"), "/w/p")).toEqual([]);
  });

  it("another extension's server, a manifest without a name or missing: nothing", () => {
    const dir = "/h/.gemini/extensions/x";
    expect(geminiHostgateExtensions([{ dir, install: null, manifest: { name: "x", mcpServers: { other: {} } } }], null, "/w")).toEqual([]);
    expect(geminiHostgateExtensions([{ dir, install: null, manifest: { mcpServers: { hostgate: {} } } }], null, "/w")).toEqual([]);
    expect(geminiHostgateExtensions([{ dir, install: null, manifest: null }], null, "/w")).toEqual([]);
  });
});
