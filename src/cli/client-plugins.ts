import { parse } from "jsonc-parser";
import { parse as parseToml } from "smol-toml";
import { clientSubdirs, readClientFile } from "../adapters/client-files.ts";
import type { ClientId } from "../core/clients/catalog.ts";
import { claudePluginInstalls } from "../core/clients/claude-plugin.ts";
import { codexPluginInstalls } from "../core/clients/codex-plugin.ts";
import { geminiHostgateExtensions, manifestDir, type GeminiExtensionDir } from "../core/clients/gemini-extension.ts";
import { tooDeep } from "../core/clients/nesting.ts";

/**
 * A client that already runs hostgate from a plugin or extension of its own (issue 25 re-trials): Claude Code's
 * plugin (core/clients/claude-plugin.ts), Codex's plugin (core/clients/codex-plugin.ts), Gemini CLI's extension
 * (core/clients/gemini-extension.ts). Setup then writes no entry, and doctor names it. Words for both.
 */
export interface ServedBy {
  kind: "plugin" | "extension";
  /** What the client's commands take: `hostgate@hostgate` (plugins), `hostgate` (the extension). */
  id: string;
  /** How it is installed: "user scope", "linked from /src/hostgate", "installed"… */
  how: string;
  /** The file that records it. */
  file: string;
  /** The client's command that removes it, so setup's entry can be used instead. */
  remove: string;
  /** The client's command that removes setup's entry (Claude Code: with `--scope`, filled in by removeOneOf). */
  removeEntry: (entryScope: "project" | "user") => string;
  /** What an entry of setup's beside it does, for setup's skip line. */
  second: string;
  /** What setup's entry found beside it does, for doctor's warning (`path`: the entry's file). */
  both: (path: string) => string;
}

/** Parsed JSON (with comments) or TOML of the file at `path`; null when missing, unreadable, too deep or malformed. */
function readParsed(path: string, format: "json" | "toml"): unknown {
  const r = readClientFile(path);
  if (!r.ok || r.file.text === null || tooDeep(r.file.text, format) !== null) return null;
  if (format === "json") return parse(r.file.text, [], { allowTrailingComma: true }) as unknown;
  try {
    return parseToml(r.file.text);
  } catch {
    return null;
  }
}

/**
 * Claude Code: the enabled installs of the hostgate plugin that apply in `cwd`, from its config directory
 * ($CLAUDE_CONFIG_DIR, else `<home>/.claude`): `plugins/installed_plugins.json`, and `enabledPlugins` of the
 * project's `.claude/settings.local.json` and `.claude/settings.json` (in `cwd`) over the user's settings.json.
 */
function claudeServedBy(env: NodeJS.ProcessEnv, home: string, cwd: string): ServedBy | null {
  const dir = env.CLAUDE_CONFIG_DIR || `${home}/.claude`;
  const file = `${dir}/plugins/installed_plugins.json`;
  const settings = [`${cwd}/.claude/settings.local.json`, `${cwd}/.claude/settings.json`, `${dir}/settings.json`].map((p) => readParsed(p, "json"));
  const p = claudePluginInstalls(readParsed(file, "json"), settings, cwd)[0];
  if (p === undefined) return null;
  return {
    kind: "plugin", id: p.id, how: `${p.scope} scope`, file,
    remove: `claude plugin uninstall ${p.id}${p.scope === "user" ? "" : ` --scope ${p.scope}`}`,
    removeEntry: (scope) => `claude mcp remove hostgate --scope ${scope}`,
    second: "a second entry would list it twice in claude mcp list",
    both: (path) => `hostgate is registered twice: the plugin ${p.id} (${p.scope} scope, ${file}) and the hostgate entry in ${path}; two registrations of one daemon (claude mcp list shows plugin:hostgate:hostgate and hostgate unless both run the very same command)`,
  };
}

/** Codex: an enabled install of the hostgate plugin in `<codexHome>/config.toml`. */
function codexServedBy(codexHome: string): ServedBy | null {
  const file = `${codexHome}/config.toml`;
  const p = codexPluginInstalls(readParsed(file, "toml"))[0];
  if (p === undefined) return null;
  return {
    kind: "plugin", id: p.id, how: "installed", file,
    remove: `codex plugin remove ${p.id}`,
    removeEntry: () => "codex mcp remove hostgate",
    second: "an entry of setup's named hostgate would replace the plugin's server (Codex runs the config.toml entry of that name)",
    both: (path) => `the hostgate entry in ${path} replaces the server of the plugin ${p.id} (installed, ${file}): Codex runs the entry's command, not the plugin's`,
  };
}

/** Gemini CLI: an extension under `<home>/.gemini/extensions` that registers the hostgate server and is on in `cwd`. */
function geminiServedBy(home: string, cwd: string): ServedBy | null {
  const root = `${home}/.gemini/extensions`;
  const dirs: GeminiExtensionDir[] = clientSubdirs(root).map((dir) => {
    const install = readParsed(`${dir}/.gemini-extension-install.json`, "json");
    return { dir, install, manifest: readParsed(`${manifestDir(dir, install)}/gemini-extension.json`, "json") };
  });
  const e = geminiHostgateExtensions(dirs, readParsed(`${root}/extension-enablement.json`, "json"), cwd)[0];
  if (e === undefined) return null;
  const file = e.dir;
  const how = e.linked ? `linked from ${e.from}` : "installed";
  return {
    kind: "extension", id: e.name, how, file,
    remove: `gemini extensions uninstall ${e.name}`,
    removeEntry: () => "gemini mcp remove --scope user hostgate",
    second: "an entry of setup's named hostgate in settings.json would replace the extension's server (Gemini CLI runs the settings entry of that name)",
    both: (path) => `the hostgate entry in ${path} replaces the server of the extension ${e.name} (${how}, ${file}): Gemini CLI runs the entry's command, not the extension's`,
  };
}

/**
 * The plugin or extension through which client `id` already runs hostgate where `cwd` is (absolute), or null:
 * Claude Code, Codex ($CODEX_HOME via `codexHome`) and Gemini CLI have one; other clients never.
 */
export function servedBy(id: ClientId, env: NodeJS.ProcessEnv, home: string, cwd: string, codexHome: string): ServedBy | null {
  switch (id) {
    case "claude": return claudeServedBy(env, home, cwd);
    case "codex": return codexServedBy(codexHome);
    case "gemini": return geminiServedBy(home, cwd);
    default: return null;
  }
}

/** How to remove either of two registrations: setup's entry (Claude Code: in `entryScope`) or the plugin/extension. */
export function removeOneOf(s: ServedBy, entryScope: "project" | "user"): string {
  return `keep one: ${s.removeEntry(entryScope)} (hostgate setup's entry), or ${s.remove} (the ${s.kind})`;
}
