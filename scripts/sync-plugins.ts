/**
 * Keeps the client plugins in step with the package (issue 25; docs/install.md "Plugins"):
 * - the `version` of every manifest equals package.json's: plugins/hostgate/.claude-plugin/plugin.json, the plugin
 *   entry of .claude-plugin/marketplace.json, gemini-extension.json and plugins/hostgate/.codex-plugin/plugin.json;
 * - plugins/hostgate/ (the one plugin directory Claude Code and Codex install) holds a copy of skills/ and of the
 *   icon docs/assets/hostgate.png: Codex copies a plugin into its cache without its symbolic links and does not
 *   take a plugin whose path is the marketplace's root, and a link out of plugins/hostgate/ cannot resolve in a
 *   client's copy of it; the Gemini CLI extension is the repository root and reads skills/ itself.
 * Usage: `npx tsx scripts/sync-plugins.ts [ROOT]` writes; `--check` writes nothing and exits 1 naming each file
 * that would change (test/packaging/plugins.test.ts runs it). ROOT defaults to this checkout.
 */
import { cpSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { pluginDrift } from "./plugin-files.ts";

const args = process.argv.slice(2);
const check = args.includes("--check");
const root = resolve(args.find((a) => !a.startsWith("--")) ?? join(import.meta.dirname, ".."));
const drift = pluginDrift(root);
if (check) {
  if (drift.length > 0) {
    process.stderr.write(`plugins out of step with the package:\n${drift.map((d) => `  ${d.file}: ${d.why}`).join("\n")}\nrun: npx tsx scripts/sync-plugins.ts\n`);
    process.exit(1);
  }
  process.exit(0);
}
for (const d of drift) {
  if (d.kind === "manifest") {
    const path = join(root, d.file);
    const json = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
    const next = d.fix(json);
    if (!isDeepStrictEqual(next, json)) writeFileSync(path, `${JSON.stringify(next, null, 2)}\n`);
  } else {
    const to = join(root, d.file);
    rmSync(to, { recursive: true, force: true }); // a link too (lstat), even a dangling one
    cpSync(join(root, d.from), to, { recursive: true });
  }
  process.stdout.write(`updated ${d.file}\n`);
}
