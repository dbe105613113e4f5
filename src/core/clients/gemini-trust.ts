/**
 * Whether Gemini CLI would connect MCP servers in a folder. With Folder Trust on (`security.folderTrust.enabled`
 * in ~/.gemini/settings.json; absent means on: gemini-cli's `isFolderTrustEnabled` is `enabled ?? true`, checked
 * in 0.61.0, issue 25), an untrusted folder runs in safe mode and "MCP servers do not connect", the user-level
 * ones from ~/.gemini/settings.json included (source: google-gemini/gemini-cli docs/cli/trusted-folders.md).
 * The environment comes first (gemini-cli's `checkPathTrust`): `GEMINI_RESTRICTED_MODE=true` or
 * `GEMINI_CLI_TRUST_WORKSPACE=false` untrusts every folder, `GEMINI_CLI_TRUST_WORKSPACE=true` (what
 * `--skip-trust` sets) trusts every folder. Then the rules in ~/.gemini/trustedFolders.json
 * (`GEMINI_CLI_TRUSTED_FOLDERS_PATH` overrides): a map of absolute path → `TRUST_FOLDER` (that folder and
 * below), `TRUST_PARENT` (its parent and below) or `DO_NOT_TRUST` (exactly that folder); the order of the
 * checks follows gemini-cli's packages/cli/src/config/trustedFolders.ts (trusted roots first, then exact
 * untrusted matches; no rule: undecided, the CLI asks on an interactive start and refuses headless). Pure.
 */

/** The environment variables of Gemini CLI's process that decide trust before any rule (values as set). */
export interface GeminiTrustEnv {
  GEMINI_CLI_TRUST_WORKSPACE?: string | undefined;
  GEMINI_RESTRICTED_MODE?: string | undefined;
}

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
 * `settings`: parsed ~/.gemini/settings.json (anything; a missing key means Folder Trust is on, Gemini CLI's
 * default; only `enabled: false` turns it off). `rules`: parsed trustedFolders.json (anything else than a map
 * counts as no rules). `folder`: absolute path. `env`: Gemini CLI's environment (see {@link GeminiTrustEnv}).
 */
export function geminiFolderTrust(settings: unknown, rules: unknown, folder: string, env: GeminiTrustEnv = {}): GeminiTrust {
  if (env.GEMINI_RESTRICTED_MODE === "true") return { state: "untrusted", rule: "GEMINI_RESTRICTED_MODE=true" };
  if (env.GEMINI_CLI_TRUST_WORKSPACE === "false") return { state: "untrusted", rule: "GEMINI_CLI_TRUST_WORKSPACE=false" };
  if (env.GEMINI_CLI_TRUST_WORKSPACE === "true") return { state: "trusted", rule: "GEMINI_CLI_TRUST_WORKSPACE=true" };
  const security = isObj(settings) ? settings.security : undefined;
  const folderTrust = isObj(security) ? security.folderTrust : undefined;
  if (isObj(folderTrust) && folderTrust.enabled === false) return { state: "off" };
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
