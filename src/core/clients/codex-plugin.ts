/**
 * Whether Codex runs hostgate from its plugin (issue 25 leftovers): `codex plugin marketplace add <repo>` + `codex
 * plugin add hostgate@<marketplace>` install plugins/hostgate, whose .mcp.json registers a server named `hostgate`.
 * Codex records the install in `$CODEX_HOME/config.toml` (the file `hostgate setup --codex` edits), as the real CLI
 * (0.171.0, checked here) writes it: `[plugins."<name>@<marketplace>"]` with `enabled = true`; `enabled = false`
 * turns it off (`codex mcp list` then lists no plugin server) and `codex plugin remove` deletes the table. An entry
 * `[mcp_servers.hostgate]` of setup's beside it replaces the plugin's server: `codex mcp list` shows one hostgate,
 * setup's command. Pure.
 */

/** The plugin's name in its manifest (plugins/hostgate/.codex-plugin/plugin.json). */
export const CODEX_PLUGIN_NAME = "hostgate";

/** One enabled install of the hostgate plugin. */
export interface CodexPluginInstall {
  /** `hostgate@<marketplace>`, what `codex plugin remove` takes. */
  id: string;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The enabled installs of the hostgate plugin in `config`, the parsed config.toml (anything of another shape counts
 * as nothing installed): each `plugins` table named `hostgate@<marketplace>` whose `enabled` is not `false`.
 */
export function codexPluginInstalls(config: unknown): CodexPluginInstall[] {
  const plugins = isObj(config) && isObj(config.plugins) ? config.plugins : {};
  const out: CodexPluginInstall[] = [];
  for (const [id, table] of Object.entries(plugins)) {
    const at = id.lastIndexOf("@");
    if ((at > 0 ? id.slice(0, at) : id) !== CODEX_PLUGIN_NAME || !isObj(table) || table.enabled === false) continue;
    out.push({ id });
  }
  return out;
}
