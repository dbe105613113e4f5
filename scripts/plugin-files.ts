/**
 * What scripts/sync-plugins.ts keeps in step, and how far each file is from it: the manifests of the Claude Code
 * plugin and marketplace, the Gemini CLI extension and the Codex plugin (their `version` = package.json's), and
 * the plugin directory's one copy of skills/ and of the icon. Used by the script and by test/packaging/plugins.test.ts.
 */
import { existsSync, lstatSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";

/**
 * The plugin directory (relative to the repository root) that Claude Code and Codex both install (issue 25): it
 * holds `.claude-plugin/plugin.json`, `.codex-plugin/plugin.json`, the one `.mcp.json` both read (Claude Code loads
 * a plugin root's `.mcp.json` by default, Codex through its manifest's `mcpServers`), and copies of skills/ and of
 * the icon. Copies, not links: Codex installs a plugin into its cache without the symbolic links in it, and a
 * link out of this directory cannot resolve in a client's copy of it (docs/install.md "Plugins"). Only the
 * plugin, so a local marketplace reads kilobytes, not the checkout with its node_modules.
 */
export const PLUGIN_DIR = "plugins/hostgate";

/** The one file that registers the MCP server for both clients (relative to the root). */
export const PLUGIN_MCP_JSON = `${PLUGIN_DIR}/.mcp.json`;

/** Every manifest file with a `version`, relative to the root. */
export const PLUGIN_MANIFESTS = [`${PLUGIN_DIR}/.claude-plugin/plugin.json`, ".claude-plugin/marketplace.json", "gemini-extension.json", `${PLUGIN_DIR}/.codex-plugin/plugin.json`] as const;

/** What the plugin directory copies from the repository: `file` (in the plugin) ← `from` (the source of truth). */
export const PLUGIN_COPIES = [
  { file: `${PLUGIN_DIR}/skills`, from: "skills" },
  { file: `${PLUGIN_DIR}/assets/hostgate.png`, from: "docs/assets/hostgate.png" },
] as const;

type Json = Record<string, unknown>;

/** One file out of step: a manifest (with the fix to apply to its parsed JSON) or a copy (with its source). */
export type PluginDrift =
  | { kind: "manifest"; file: string; why: string; fix: (json: Json) => Json }
  | { kind: "copy"; file: string; from: string; why: string };

/** Every file under `dir` (relative paths, sorted); [] when `dir` does not exist. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.push(relative(dir, p));
    }
  };
  walk(dir);
  return out.sort();
}

/** Whether `path` is a symbolic link or a directory holding one (a client's copy of the plugin would lose it). */
function holdsLink(path: string): boolean {
  if (!existsSync(path)) return false;
  const st = lstatSync(path);
  if (st.isSymbolicLink()) return true;
  return st.isDirectory() && readdirSync(path).some((name) => holdsLink(join(path, name)));
}

/** Whether two trees hold the same files with the same bytes and executable bits. */
function sameTree(a: string, b: string): boolean {
  const fa = filesUnder(a);
  const fb = filesUnder(b);
  if (fa.join("\n") !== fb.join("\n")) return false;
  return fa.every((f) => readFileSync(join(a, f)).equals(readFileSync(join(b, f))) && (statSync(join(a, f)).mode & 0o111) === (statSync(join(b, f)).mode & 0o111));
}

/**
 * The files under `root` that differ from what package.json, skills/ and the icon say, each with why; [] when all
 * are in step. Throws (ENOENT, SyntaxError) when a manifest is missing or not JSON.
 */
export function pluginDrift(root: string): PluginDrift[] {
  const version = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }).version;
  const drift: PluginDrift[] = [];
  for (const file of PLUGIN_MANIFESTS) {
    const json = JSON.parse(readFileSync(join(root, file), "utf8")) as Json;
    if (file.endsWith("marketplace.json")) {
      const plugins = (json.plugins ?? []) as Json[];
      const ours = plugins.find((p) => p.name === "hostgate");
      if (ours?.version !== version) {
        drift.push({ kind: "manifest", file, why: `plugin hostgate has version ${String(ours?.version)}, package.json ${version}`, fix: (j) => ({ ...j, plugins: ((j.plugins ?? []) as Json[]).map((p) => (p.name === "hostgate" ? { ...p, version } : p)) }) });
      }
    } else if (json.version !== version) {
      drift.push({ kind: "manifest", file, why: `version ${String(json.version)}, package.json ${version}`, fix: (j) => ({ ...j, version }) });
    }
  }
  for (const c of PLUGIN_COPIES) {
    const to = join(root, c.file);
    const from = join(root, c.from);
    if (holdsLink(to)) {
      drift.push({ kind: "copy", ...c, why: `a symbolic link, which Codex drops when it installs the plugin: a copy of ${c.from} is needed` });
      continue;
    }
    const same = statSync(from).isDirectory() ? sameTree(from, to) : existsSync(to) && readFileSync(from).equals(readFileSync(to));
    if (!same) drift.push({ kind: "copy", ...c, why: `not a copy of ${c.from}` });
  }
  return drift;
}
