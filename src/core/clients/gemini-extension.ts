/**
 * Whether Gemini CLI runs hostgate from its extension (issue 25 leftovers): `gemini extensions install <repo>` copies
 * the repository's gemini-extension.json (which registers a server named `hostgate`) into
 * `~/.gemini/extensions/<name>/`; `gemini extensions link <dir>` writes only `.gemini-extension-install.json` there,
 * `{"source": "<dir>", "type": "link"}`, and the manifest is read from `<dir>` (real CLI 0.61.0, checked here).
 * Whether it is on in a folder: `~/.gemini/extensions/extension-enablement.json`, `{"<name>": {"overrides":
 * ["<path>/*", "!<path>/*", …]}}`: the last rule that matches the folder wins, `!` turns it off, a rule ending in `*`
 * covers the folder's subfolders too, no rule: on (gemini-cli's extensionEnablement.ts). A `hostgate` entry in
 * settings.json (setup's) replaces the extension's server of that name: gemini keeps the settings entry
 * (getMcpServersFromConfig). `--extensions` on gemini's command line and admin settings are not read. Pure.
 */

/** The MCP server name the extension registers, and setup's entry's name. */
export const GEMINI_SERVER_NAME = "hostgate";

/** One extension directory under ~/.gemini/extensions as read: its install metadata and its manifest, parsed. */
export interface GeminiExtensionDir {
  /** The directory under ~/.gemini/extensions. */
  dir: string;
  /** Parsed `.gemini-extension-install.json`, or null. */
  install: unknown;
  /** Parsed gemini-extension.json from manifestDir(dir, install), or null. */
  manifest: unknown;
}

/** An enabled extension that registers the hostgate server where gemini runs. */
export interface GeminiExtension {
  /** The extension's name (its manifest's), what `gemini extensions uninstall|disable` take. */
  name: string;
  /** Its directory under ~/.gemini/extensions. */
  dir: string;
  /** The directory its manifest was read from (the linked source for a link). */
  from: string;
  linked: boolean;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Where the manifest of the extension in `dir` is: the link's source for a linked one, else `dir` itself. */
export function manifestDir(dir: string, install: unknown): string {
  return isObj(install) && install.type === "link" && typeof install.source === "string" && install.source !== "" ? install.source : dir;
}

/** `path` with one leading and one trailing `/` (gemini's ensureLeadingAndTrailingSlash). */
const slashed = (path: string): string => `${path.startsWith("/") ? "" : "/"}${path}${path.endsWith("/") ? "" : "/"}`;

/** Whether one rule of extension-enablement.json (without its `!`) matches folder `cwd` (absolute). */
function ruleMatches(rule: string, cwd: string): boolean {
  const subdirs = rule.endsWith("*");
  const base = subdirs ? rule.slice(0, -1) : rule;
  // gemini turns the rule into a glob where `*` (with the `/` before it) may stand for any rest of the path.
  const pattern = `${base}${subdirs ? "*" : ""}`.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/(\/?)\*/g, "($1.*)?");
  return new RegExp(`^${pattern}$`).test(slashed(cwd));
}

/**
 * Whether extension `name` is on in folder `cwd` by `enablement`, the parsed extension-enablement.json: the last
 * matching override decides (`!`: off); none, or a file of another shape: on.
 */
export function geminiExtensionEnabled(enablement: unknown, name: string, cwd: string): boolean {
  const entry = isObj(enablement) ? enablement[name] : undefined;
  const overrides = isObj(entry) && Array.isArray(entry.overrides) ? entry.overrides : [];
  let on = true;
  for (const rule of overrides) {
    if (typeof rule !== "string") continue;
    const off = rule.startsWith("!");
    if (ruleMatches(off ? rule.slice(1) : rule, cwd)) on = !off;
  }
  return on;
}

/**
 * The extensions among `dirs` that register a server named `hostgate` and are on in `cwd` (geminiExtensionEnabled
 * with `enablement`), in the order given. A directory whose manifest is missing or has no name counts as none.
 */
export function geminiHostgateExtensions(dirs: readonly GeminiExtensionDir[], enablement: unknown, cwd: string): GeminiExtension[] {
  const out: GeminiExtension[] = [];
  for (const d of dirs) {
    const m = d.manifest;
    if (!isObj(m) || typeof m.name !== "string" || m.name === "" || !isObj(m.mcpServers) || !(GEMINI_SERVER_NAME in m.mcpServers)) continue;
    if (!geminiExtensionEnabled(enablement, m.name, cwd)) continue;
    const from = manifestDir(d.dir, d.install);
    out.push({ name: m.name, dir: d.dir, from, linked: from !== d.dir });
  }
  return out;
}
