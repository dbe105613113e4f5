import { SERVER_NAME, type EntrySpec, type Json, type StdioEntry } from "./entry.ts";

/**
 * The AI clients `hostgate setup` configures, as data: where each reads its MCP servers on Linux, under which
 * key, and the shape of one entry (source: ../shared/CLIENTS.md; "unverified" there stays unverified here).
 * Sources of the clients added for issue 25, each read in December 2026:
 * - Cline: docs.cline.bot/mcp/configuring-mcp-servers (`cline_mcp_settings.json`, `mcpServers`, `disabled`,
 *   `autoApprove`); entry types from Cline's `src/services/mcp/schemas.ts` (`type: "stdio"`, a URL entry
 *   without `type` is SSE, `type: "streamableHttp"` for Streamable HTTP). The VS Code extension keeps the file
 *   in its global storage; the Cline CLI reads ~/.cline/data/settings/ instead (not written here).
 * - Continue: docs.continue.dev/customize/deep-dives/mcp (`mcpServers:` list in ~/.continue/config.yaml,
 *   `name`/`command`/`args`/`env`, `type: streamable-http` + `url`); a new config.yaml needs `name`,
 *   `version` and `schema: v1` (docs.continue.dev/reference config.yaml). Headers of a remote server go in
 *   `requestOptions.headers` (Continue's config-yaml schema).
 * - Goose: block.github.io/goose/docs/guides/config-files (~/.config/goose/config.yaml, `extensions:` keyed by
 *   id); entry fields from goose's `ExtensionConfig` (`crates/goose/src/agents/extension.rs`): stdio
 *   `cmd`/`args`/`envs`/`env_keys`/`timeout`, Streamable HTTP `type: streamable_http` + `uri` + `headers`;
 *   `enabled`, `name` and `type` beside them. `env_keys` are taken from Goose's secrets or the environment.
 * - Zed: zed.dev/docs/ai/mcp (`context_servers` in ~/.config/zed/settings.json, `command`/`args`/`env` or
 *   `url`/`headers`); Zed's settings file is JSON with comments.
 * - Kiro: kiro.dev/docs/mcp/configuration (~/.kiro/settings/mcp.json user level, `mcpServers`,
 *   `command`/`args`/`env` or `url`/`headers`, `${VAR}` expanded in `env` and `headers`).
 */

/** Client ids; each is also its setup flag (`--claude`, `--claude-desktop`, …). */
export const CLIENT_IDS = ["claude", "claude-desktop", "cursor", "codex", "vscode", "lmstudio", "opencode", "gemini", "cline", "continue", "goose", "zed", "kiro"] as const;
export type ClientId = (typeof CLIENT_IDS)[number];

/** Where the paths of a client come from: the user's home and XDG dirs, the project directory, and overrides. */
export interface ClientContext {
  home: string;
  cwd: string;
  /** $XDG_CONFIG_HOME or ~/.config. */
  configHome: string;
  /** $CODEX_HOME or ~/.codex. */
  codexHome: string;
  /** Claude Code scope: the project's .mcp.json, or the user's ~/.claude.json (top-level mcpServers). */
  claudeScope: "project" | "user";
}

/** One rendered entry plus what the user should know about it (one line each). */
export interface Rendered {
  entry: Record<string, Json>;
  notes: string[];
}

/** A client: identity, file, table and entry shape. */
export interface ClientDef {
  id: ClientId;
  label: string;
  /** The config file this setup edits. */
  file(ctx: ClientContext): string;
  format: "json" | "toml" | "yaml";
  /** Path of the server table inside the file (our entry is `<table>.hostgate`). */
  table: readonly string[];
  /** The table is a list of servers named by their `name` key (Continue), not a mapping keyed by name (YAML only). */
  list?: boolean;
  /** Keys a new file starts with besides the table. */
  skeleton?: Record<string, Json>;
  /** Whether the file belongs to a project (checked against .gitignore when it holds a secret). */
  project(ctx: ClientContext): boolean;
  /** Paths (dirs or files) and commands on PATH whose presence means the client is installed. */
  detect(ctx: ClientContext): { paths: string[]; commands: string[] };
  /** Renders the entry. `stdio` is always given (clients without HTTP entries fall back to it). */
  render(spec: EntrySpec, stdio: StdioEntry): Rendered;
}

/**
 * Keys of our entry that setup owns: rewritten or removed on every run. Any other key a user added to the
 * hostgate entry (timeouts, `trust`, `disabled`, tool filters…) is kept.
 */
export const MANAGED_KEYS = ["type", "command", "args", "env", "environment", "env_vars", "url", "headers", "http_headers", "oauth", "enabled", "startup_timeout_sec", "name", "cmd", "envs", "env_keys", "uri", "requestOptions"] as const;

/** Goose waits 300 s for an extension by default; written once, a value the user set wins (not managed). */
export const GOOSE_TIMEOUT_SEC = 300;

/** OpenCode waits 5 s for the tool list by default. */
export const OPENCODE_TIMEOUT_MS = 15_000;

/** Codex's default startup timeout is 10 s; a first start on a cold disk can take longer. */
export const CODEX_STARTUP_TIMEOUT_SEC = 30;

const bearer = (token: string | undefined): Record<string, Json> | undefined => (token ? { Authorization: `Bearer ${token}` } : undefined);

function envWith(stdio: StdioEntry, forward: (name: string) => string | null): { env: Record<string, string>; notes: string[] } {
  const env: Record<string, string> = { ...stdio.env };
  const notes: string[] = [];
  for (const name of stdio.forwardEnv) {
    const ref = forward(name);
    if (ref === null) notes.push(`this client does not expand variables: ${name} must be set in the environment the client itself starts with`);
    else env[name] = ref;
  }
  return { env, notes };
}

function compact(o: Record<string, Json | undefined>): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const [k, v] of Object.entries(o)) {
    if (v === undefined) continue;
    if (typeof v === "object" && v !== null && !Array.isArray(v) && Object.keys(v).length === 0) continue;
    out[k] = v;
  }
  return out;
}

/** The common `mcpServers` shape (Cursor, LM Studio, Gemini…) with a client-specific variable syntax. */
function mcpServersShape(forward: (name: string) => string | null, opts: { stdioType?: boolean; httpType?: boolean } = {}) {
  return (spec: EntrySpec, stdio: StdioEntry): Rendered => {
    if (spec.transport === "http") {
      return { entry: compact({ ...(opts.httpType ? { type: "http" } : {}), url: spec.url, headers: bearer(spec.token) }), notes: [] };
    }
    const { env, notes } = envWith(stdio, forward);
    return { entry: compact({ ...(opts.stdioType ? { type: "stdio" } : {}), command: stdio.command, args: stdio.args, env }), notes };
  };
}

const has = (...paths: string[]) => paths;

/** The line `setup` and `doctor` show for Gemini CLI: with Folder Trust on, an untrusted folder loads no MCP server. */
export const GEMINI_TRUST_NOTE = "Gemini CLI with Folder Trust on (its default; security.folderTrust.enabled: false turns it off) connects no MCP server in an untrusted folder, user-level ones included (gemini mcp list shows them Disabled): trust the folder with /permissions inside gemini (saved in ~/.gemini/trustedFolders.json), or run it with --skip-trust / GEMINI_CLI_TRUST_WORKSPACE=true (GEMINI_TRUST_WORKSPACE is not a name Gemini CLI reads)";

/** Every client setup knows, in picker order. */
export const CLIENTS: readonly ClientDef[] = [
  {
    id: "claude",
    label: "Claude Code",
    file: (c) => (c.claudeScope === "project" ? `${c.cwd}/.mcp.json` : `${c.home}/.claude.json`),
    format: "json",
    table: ["mcpServers"],
    project: (c) => c.claudeScope === "project",
    detect: (c) => ({ paths: has(`${c.home}/.claude.json`, `${c.home}/.claude`), commands: ["claude"] }),
    render: mcpServersShape((n) => `\${${n}}`, { stdioType: true, httpType: true }),
  },
  {
    id: "claude-desktop",
    label: "Claude Desktop",
    // Linux builds are beta; ~/.config/Claude is the convention they follow (unverified, CLIENTS.md).
    file: (c) => `${c.configHome}/Claude/claude_desktop_config.json`,
    format: "json",
    table: ["mcpServers"],
    project: () => false,
    detect: (c) => ({ paths: has(`${c.configHome}/Claude`), commands: ["claude-desktop"] }),
    render: (spec, stdio) => {
      const r = mcpServersShape(() => null)(stdio, stdio);
      if (spec.transport === "http") r.notes.unshift("Claude Desktop reads only stdio entries from its file (remote servers are added as Connectors in its settings): wrote the stdio entry");
      return r;
    },
  },
  {
    id: "cursor",
    label: "Cursor",
    file: (c) => `${c.home}/.cursor/mcp.json`,
    format: "json",
    table: ["mcpServers"],
    project: () => false,
    detect: (c) => ({ paths: has(`${c.home}/.cursor`), commands: ["cursor", "cursor-agent"] }),
    render: mcpServersShape((n) => `\${env:${n}}`),
  },
  {
    id: "codex",
    label: "Codex CLI",
    file: (c) => `${c.codexHome}/config.toml`,
    format: "toml",
    table: ["mcp_servers"],
    project: () => false,
    detect: (c) => ({ paths: has(c.codexHome), commands: ["codex"] }),
    render: (spec, stdio) => {
      // Codex is strict: no `type`, no `headers`, no inline bearer_token; static headers go in http_headers.
      if (spec.transport === "http") {
        return { entry: compact({ url: spec.url, http_headers: bearer(spec.token), startup_timeout_sec: CODEX_STARTUP_TIMEOUT_SEC }), notes: [] };
      }
      return {
        entry: compact({ command: stdio.command, args: stdio.args, env: stdio.env, env_vars: stdio.forwardEnv.length ? [...stdio.forwardEnv] : undefined, startup_timeout_sec: CODEX_STARTUP_TIMEOUT_SEC }),
        notes: [],
      };
    },
  },
  {
    id: "vscode",
    label: "VS Code",
    file: (c) => `${c.cwd}/.vscode/mcp.json`,
    format: "json",
    table: ["servers"],
    project: () => true,
    detect: (c) => ({ paths: has(`${c.configHome}/Code`, `${c.cwd}/.vscode`), commands: ["code"] }),
    render: mcpServersShape((n) => `\${env:${n}}`, { stdioType: true, httpType: true }),
  },
  {
    id: "lmstudio",
    label: "LM Studio",
    file: (c) => `${c.home}/.lmstudio/mcp.json`,
    format: "json",
    table: ["mcpServers"],
    project: () => false,
    detect: (c) => ({ paths: has(`${c.home}/.lmstudio`), commands: ["lms"] }),
    render: mcpServersShape(() => null),
  },
  {
    id: "opencode",
    label: "OpenCode",
    file: (c) => `${c.configHome}/opencode/opencode.json`,
    format: "json",
    table: ["mcp"],
    skeleton: { $schema: "https://opencode.ai/config.json" },
    project: () => false,
    detect: (c) => ({ paths: has(`${c.configHome}/opencode`), commands: ["opencode"] }),
    render: (spec, stdio) => {
      // One command array, `environment` (not env), no extra keys; remote entries need oauth: false.
      if (spec.transport === "http") {
        return { entry: compact({ type: "remote", url: spec.url, headers: bearer(spec.token), oauth: false, enabled: true }), notes: [] };
      }
      const { env, notes } = envWith(stdio, (n) => `{env:${n}}`);
      // `timeout` (ms to list tools) defaults to 5000; a first start on a busy machine can take longer. Not a
      // managed key: a value the user set wins.
      return { entry: compact({ type: "local", command: [stdio.command, ...stdio.args], environment: env, enabled: true, timeout: OPENCODE_TIMEOUT_MS }), notes };
    },
  },
  {
    id: "gemini",
    label: "Gemini CLI",
    file: (c) => `${c.home}/.gemini/settings.json`,
    format: "json",
    table: ["mcpServers"],
    project: () => false,
    detect: (c) => ({ paths: has(`${c.home}/.gemini`), commands: ["gemini"] }),
    render: (spec, stdio) => {
      const r = mcpServersShape((n) => `$${n}`, { httpType: true })(spec, stdio);
      r.notes.push(GEMINI_TRUST_NOTE);
      return r;
    },
  },
  {
    id: "cline",
    label: "Cline",
    file: (c) => `${c.configHome}/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json`,
    format: "json",
    table: ["mcpServers"],
    project: () => false,
    detect: (c) => ({ paths: has(`${c.configHome}/Code/User/globalStorage/saoudrizwan.claude-dev`), commands: ["cline"] }),
    render: (spec, stdio) => {
      if (spec.transport === "http") return { entry: compact({ type: "streamableHttp", url: spec.url, headers: bearer(spec.token) }), notes: [] };
      return mcpServersShape(() => null, { stdioType: true })(spec, stdio);
    },
  },
  {
    id: "continue",
    label: "Continue",
    file: (c) => `${c.home}/.continue/config.yaml`,
    format: "yaml",
    table: ["mcpServers"],
    list: true,
    skeleton: { name: "Local Config", version: "1.0.0", schema: "v1" },
    project: () => false,
    detect: (c) => ({ paths: has(`${c.home}/.continue`), commands: ["cn"] }),
    render: (spec, stdio) => {
      if (spec.transport === "http") {
        const headers = bearer(spec.token);
        return { entry: compact({ type: "streamable-http", url: spec.url, requestOptions: headers ? { headers } : undefined }), notes: [] };
      }
      const r = mcpServersShape(() => null)(spec, stdio);
      r.notes.push("Continue offers MCP tools in agent mode only");
      return r;
    },
  },
  {
    id: "goose",
    label: "Goose",
    file: (c) => `${c.configHome}/goose/config.yaml`,
    format: "yaml",
    table: ["extensions"],
    project: () => false,
    detect: (c) => ({ paths: has(`${c.configHome}/goose`), commands: ["goose"] }),
    render: (spec, stdio) => {
      const common = { enabled: true, name: SERVER_NAME, description: "Inspect Linux hosts; change them only through approved plans", timeout: GOOSE_TIMEOUT_SEC };
      if (spec.transport === "http") return { entry: compact({ ...common, type: "streamable_http", uri: spec.url, headers: bearer(spec.token) }), notes: [] };
      return { entry: compact({ ...common, type: "stdio", cmd: stdio.command, args: stdio.args, envs: stdio.env, env_keys: stdio.forwardEnv.length ? [...stdio.forwardEnv] : undefined }), notes: [] };
    },
  },
  {
    id: "zed",
    label: "Zed",
    file: (c) => `${c.configHome}/zed/settings.json`,
    format: "json",
    table: ["context_servers"],
    project: () => false,
    detect: (c) => ({ paths: has(`${c.configHome}/zed`), commands: ["zed", "zeditor"] }),
    render: (spec, stdio) => {
      const r = mcpServersShape(() => null)(spec, stdio);
      r.notes.push("Zed uses MCP tools and prompts only (no resources)");
      return r;
    },
  },
  {
    id: "kiro",
    label: "Kiro",
    file: (c) => `${c.home}/.kiro/settings/mcp.json`,
    format: "json",
    table: ["mcpServers"],
    project: () => false,
    detect: (c) => ({ paths: has(`${c.home}/.kiro`), commands: ["kiro", "kiro-cli"] }),
    render: mcpServersShape((n) => `\${${n}}`),
  },
];

/** The client with this id (ids come from CLIENT_IDS, so it always exists). */
export function clientById(id: ClientId): ClientDef {
  return CLIENTS.find((c) => c.id === id)!;
}

export { SERVER_NAME };
