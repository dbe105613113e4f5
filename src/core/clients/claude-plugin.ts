/**
 * Whether Claude Code already runs hostgate from its plugin (issue 25 re-trial 2): a user who installs the plugin
 * (`claude plugin install hostgate@<marketplace>`) and also runs `hostgate setup --claude` gets the server twice,
 * `plugin:hostgate:hostgate` and `hostgate` in `claude mcp list`, both connected. Claude Code records installed
 * plugins in `<config dir>/plugins/installed_plugins.json` (config dir: ~/.claude, or $CLAUDE_CONFIG_DIR), as
 * written by the real CLI (2.1.332, checked here): `{ "version": 2, "plugins": { "<name>@<marketplace>":
 * [{ "scope": "user" | "project" | "local", "projectPath"?: …, "installPath", "version", … }] } }`, and whether
 * each is on in the settings files' `enabledPlugins` (`"<name>@<marketplace>": false` turns it off, `true` on).
 * Claude Code merges its settings files key by key, the more specific file winning (code.claude.com/docs/en/settings,
 * "Settings precedence": managed > command line > `.claude/settings.local.json` > `.claude/settings.json` of the
 * project > `<config dir>/settings.json`); checked here with the real CLI: `claude plugin disable --scope local`
 * writes `false` into the project's settings.local.json and turns the user's plugin off there, and `true` in the
 * project's settings.json turns it back on over the user's `false`. Managed settings and `--settings` are not read. Pure.
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
 * Whether plugin `id` is on by the settings files `layers`, most specific first (the parsed
 * `.claude/settings.local.json`, `.claude/settings.json` of the project, then the user's settings.json): the first
 * file whose `enabledPlugins` holds a boolean for `id` decides; none: on (an installed plugin is on unless turned off).
 * A file of another shape, or a value that is not a boolean, says nothing.
 */
export function claudePluginEnabled(id: string, layers: readonly unknown[]): boolean {
  for (const settings of layers) {
    const value = isObj(settings) && isObj(settings.enabledPlugins) ? settings.enabledPlugins[id] : undefined;
    if (typeof value === "boolean") return value;
  }
  return true;
}

/**
 * The enabled installs of the hostgate plugin that apply in `cwd`: user-scoped ones, and project/local ones whose
 * `projectPath` is `cwd`. `installed`: parsed installed_plugins.json; `settings`: the parsed settings files, most
 * specific first (claudePluginEnabled; anything else than the shapes above counts as nothing installed / nothing
 * turned off). `cwd`: absolute path.
 */
export function claudePluginInstalls(installed: unknown, settings: readonly unknown[], cwd: string): ClaudePluginInstall[] {
  const plugins = isObj(installed) && isObj(installed.plugins) ? installed.plugins : {};
  const out: ClaudePluginInstall[] = [];
  for (const [id, records] of Object.entries(plugins)) {
    const at = id.lastIndexOf("@");
    if ((at > 0 ? id.slice(0, at) : id) !== CLAUDE_PLUGIN_NAME || !claudePluginEnabled(id, settings) || !Array.isArray(records)) continue;
    for (const r of records) {
      if (!isObj(r)) continue;
      const scope = typeof r.scope === "string" ? r.scope : "user";
      if (scope !== "user" && r.projectPath !== cwd) continue;
      out.push({ id, scope, version: typeof r.version === "string" ? r.version : null });
    }
  }
  return out;
}
