/**
 * Whether Gemini CLI would connect MCP servers in a folder. With Folder Trust on
 * (`security.folderTrust.enabled: true` in ~/.gemini/settings.json), an untrusted folder runs in safe mode and
 * "MCP servers do not connect", the user-level ones from ~/.gemini/settings.json included (source:
 * google-gemini/gemini-cli docs/cli/trusted-folders.md). Rules live in ~/.gemini/trustedFolders.json
 * (`GEMINI_CLI_TRUSTED_FOLDERS_PATH` overrides): a map of absolute path → `TRUST_FOLDER` (that folder and
 * below), `TRUST_PARENT` (its parent and below) or `DO_NOT_TRUST` (exactly that folder); the order of the
 * checks follows gemini-cli's packages/cli/src/config/trustedFolders.ts (trusted roots first, then exact
 * untrusted matches; no rule: undecided, the CLI asks on an interactive start and refuses headless). Pure.
 */

/** What Gemini CLI does with MCP servers in that folder. */
export type GeminiTrust =
  | { state: "off" }
  | { state: "trusted"; rule: string }
  | { state: "untrusted"; rule: string }
  | { state: "undecided" };

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function parentOf(path: string): string {
  const trimmed = path.length > 1 ? path.replace(/\/+$/, "") : path;
  const i = trimmed.lastIndexOf("/");
  return i <= 0 ? "/" : trimmed.slice(0, i);
}

const norm = (p: string): string => (p.length > 1 ? p.replace(/\/+$/, "") : p);
const within = (location: string, root: string): boolean => norm(location) === norm(root) || norm(location).startsWith(`${norm(root) === "/" ? "" : norm(root)}/`);

/**
 * `settings`: parsed ~/.gemini/settings.json (anything; missing keys mean Folder Trust is off, its default).
 * `rules`: parsed trustedFolders.json (anything else than a map counts as no rules). `folder`: absolute path.
 */
export function geminiFolderTrust(settings: unknown, rules: unknown, folder: string): GeminiTrust {
  const security = isObj(settings) ? settings.security : undefined;
  const folderTrust = isObj(security) ? security.folderTrust : undefined;
  if (!(isObj(folderTrust) && folderTrust.enabled === true)) return { state: "off" };
  const entries = isObj(rules) ? Object.entries(rules).filter((e): e is [string, string] => typeof e[1] === "string") : [];
  for (const [path, level] of entries) {
    if (level !== "TRUST_FOLDER" && level !== "TRUST_PARENT") continue;
    const root = level === "TRUST_PARENT" ? parentOf(path) : path;
    if (within(folder, root)) return { state: "trusted", rule: `${path}: ${level}` };
  }
  for (const [path, level] of entries) {
    if (level === "DO_NOT_TRUST" && norm(path) === norm(folder)) return { state: "untrusted", rule: `${path}: ${level}` };
  }
  return { state: "undecided" };
}
