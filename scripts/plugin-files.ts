/**
 * What scripts/sync-plugins.ts keeps in step, and how far each file is from it: the manifests of the Claude Code
 * plugin and marketplace, the Gemini CLI extension and the Codex plugin (their `version` = package.json's), and
 * the Codex and Claude Code plugins' copies of skills/ and of the icon. Used by the script and by test/packaging/plugins.test.ts.
 */
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";

/** The Codex plugin's folder (relative to the repository root). */
export const CODEX_PLUGIN_DIR = "plugins/hostgate";

/**
 * The Claude Code plugin's folder: the marketplace's plugin source. Only the plugin (manifest, skills, icon), so
 * a local marketplace copies kilobytes, not the checkout with its node_modules (issue 25).
 */
export const CLAUDE_PLUGIN_DIR = "plugins/claude-code";

/** Every manifest file, relative to the root. */
export const PLUGIN_MANIFESTS = [`${CLAUDE_PLUGIN_DIR}/.claude-plugin/plugin.json`, ".claude-plugin/marketplace.json", "gemini-extension.json", `${CODEX_PLUGIN_DIR}/.codex-plugin/plugin.json`] as const;

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

/** Whether two trees hold the same files with the same bytes and executable bits. */
function sameTree(a: string, b: string): boolean {
  const fa = filesUnder(a);
  const fb = filesUnder(b);
  if (fa.join("\n") !== fb.join("\n")) return false;
  return fa.every((f) => readFileSync(join(a, f)).equals(readFileSync(join(b, f))) && (statSync(join(a, f)).mode & 0o111) === (statSync(join(b, f)).mode & 0o111));
}

/** The files under `root` that differ from what package.json and skills/ say; [] when all are in step. */
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
  const copies = [CODEX_PLUGIN_DIR, CLAUDE_PLUGIN_DIR].flatMap((dir) => [{ file: `${dir}/skills`, from: "skills" }, { file: `${dir}/assets/hostgate.png`, from: "docs/assets/hostgate.png" }]);
  for (const c of copies) {
    const to = join(root, c.file);
    const from = join(root, c.from);
    const same = statSync(from).isDirectory() ? sameTree(from, to) : existsSync(to) && readFileSync(from).equals(readFileSync(to));
    if (!same) drift.push({ kind: "copy", ...c, why: `not a copy of ${c.from}` });
  }
  return drift;
}
