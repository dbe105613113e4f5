import { parse } from "jsonc-parser";
import { readClientFile } from "../adapters/client-files.ts";
import { claudePluginInstalls, type ClaudePluginInstall } from "../core/clients/claude-plugin.ts";

/**
 * The enabled installs of the hostgate Claude Code plugin that apply in `cwd` (core/clients/claude-plugin.ts), read
 * from Claude Code's config directory ($CLAUDE_CONFIG_DIR, else `<home>/.claude`): `plugins/installed_plugins.json`
 * and `settings.json`. Missing or unreadable files count as nothing installed. Also returns the installs file's path.
 */
export function claudePluginsHere(env: NodeJS.ProcessEnv, home: string, cwd: string): { installs: ClaudePluginInstall[]; file: string } {
  const dir = env.CLAUDE_CONFIG_DIR || `${home}/.claude`;
  const file = `${dir}/plugins/installed_plugins.json`;
  const json = (path: string): unknown => {
    const r = readClientFile(path);
    return r.ok && r.file.text !== null ? parse(r.file.text, [], { allowTrailingComma: true }) : null;
  };
  return { installs: claudePluginInstalls(json(file), json(`${dir}/settings.json`), cwd), file };
}

/** How to remove each of two registrations: setup's entry (by `scope`, Claude Code's word) or the plugin. */
export function removeOneOf(plugin: ClaudePluginInstall, entryScope: "project" | "user"): string {
  return `keep one: claude mcp remove hostgate --scope ${entryScope} (hostgate setup's entry), or claude plugin uninstall ${plugin.id}${plugin.scope === "user" ? "" : ` --scope ${plugin.scope}`} (the plugin)`;
}
