/**
 * Whether Claude Code already runs hostgate from its plugin (issue 25 re-trial 2): a user who installs the plugin
 * (`claude plugin install hostgate@<marketplace>`) and also runs `hostgate setup --claude` gets the server twice,
 * `plugin:hostgate:hostgate` and `hostgate` in `claude mcp list`, both connected. Claude Code records installed
 * plugins in `<config dir>/plugins/installed_plugins.json` (config dir: ~/.claude, or $CLAUDE_CONFIG_DIR), as
 * written by the real CLI (2.1.332, checked here): `{ "version": 2, "plugins": { "<name>@<marketplace>":
 * [{ "scope": "user" | "project" | "local", "projectPath"?: …, "installPath", "version", … }] } }`, and whether
 * each is on in `<config dir>/settings.json` `enabledPlugins` (`"<name>@<marketplace>": false` turns it off). Pure.
 */

/** The plugin's name in its manifest (plugins/hostgate/.claude-plugin/plugin.json). */
export const CLAUDE_PLUGIN_NAME = "hostgate";

/** One install of the hostgate plugin that registers its server where `cwd` is. */
export interface ClaudePluginInstall {
  /** `hostgate@<marketplace>`, what `claude plugin uninstall` takes. */
  id: string;
  scope: string;
  version: string | null;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The enabled installs of the hostgate plugin that apply in `cwd`: user-scoped ones, and project/local ones whose
 * `projectPath` is `cwd`. `installed`: parsed installed_plugins.json; `settings`: parsed settings.json (anything
 * else than the shapes above counts as nothing installed / nothing turned off). `cwd`: absolute path.
 */
export function claudePluginInstalls(installed: unknown, settings: unknown, cwd: string): ClaudePluginInstall[] {
  const plugins = isObj(installed) && isObj(installed.plugins) ? installed.plugins : {};
  const enabled = isObj(settings) && isObj(settings.enabledPlugins) ? settings.enabledPlugins : {};
  const out: ClaudePluginInstall[] = [];
  for (const [id, records] of Object.entries(plugins)) {
    const at = id.lastIndexOf("@");
    if ((at > 0 ? id.slice(0, at) : id) !== CLAUDE_PLUGIN_NAME || enabled[id] === false || !Array.isArray(records)) continue;
    for (const r of records) {
      if (!isObj(r)) continue;
      const scope = typeof r.scope === "string" ? r.scope : "user";
      if (scope !== "user" && r.projectPath !== cwd) continue;
      out.push({ id, scope, version: typeof r.version === "string" ? r.version : null });
    }
  }
  return out;
}
