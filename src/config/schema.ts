import { z } from "zod";
import { systemdBackendConfigSchema } from "./systemd-backend.ts";

/**
 * Exposure groups (toolsets): feature flags for the model-facing tool surface, listed once in
 * core/toolsets.ts. A tool belongs to zero or more groups; `tools.enable` / `tools.disable` override group
 * membership per tool.
 */
export { TOOLSETS, type Toolset } from "../core/toolsets.ts";
import { RISK_LEVELS } from "../core/risk-level.ts";
import { TOOLSETS, type Toolset } from "../core/toolsets.ts";
import { ExecConfigSchema, InventoryConfigSchema, PolicyConfigSchema, RiskConfigSchema } from "./hosts.ts";

const groups = z.object(Object.fromEntries(TOOLSETS.map((t) => [t, z.boolean().optional().describe(t === "hosts"
  ? "Show the hosts toolset (default on for search_hosts, list_backends, get_host_details; exec_on_host needs exec.enabled: true)"
  : `Show the ${t} toolset (default on; true also lists each of its read-only actions as a tool, docs/tool-surface.md)`)])) as Record<Toolset, z.ZodOptional<z.ZodBoolean>>).strict();

/** The whole configuration file. Every object is strict: unknown keys are errors, not ignored. */
export const ConfigSchema = z.object({
  server: z.object({
    host: z.string().min(1).default("127.0.0.1").describe("Address the HTTP server binds to"),
    port: z.number().int().min(0).max(65535).default(48000).describe("TCP port of the HTTP server (0 picks a free one)"),
    token: z.string().min(16, "use at least 16 characters").optional().describe("Bearer token HTTP clients must send; required when host is not loopback (or HOSTGATE_HTTP_TOKEN)"),
    allowed_hosts: z.array(z.string().min(1)).default(() => []).describe("Extra Host header names accepted besides loopback ones"),
    allowed_origins: z.array(z.string().min(1)).default(() => []).describe("Extra Origin values accepted besides loopback ones; 'null' must be listed to be accepted"),
    max_body_bytes: z.number().int().min(1024).max(16 * 1024 * 1024).default(4 * 1024 * 1024).describe("Largest HTTP request body; larger bodies get 413. The default, 4 MiB, is the stdio front's line cap: WriteFile's 1 MiB of content fits either way, even JSON-escaped"),
  }).strict().default(() => ({ host: "127.0.0.1", port: 48000, allowed_hosts: [], allowed_origins: [], max_body_bytes: 4 * 1024 * 1024 })),
  tools: z.object({
    exposure: z.enum(["all", "read_only"]).default("all").describe("read_only hides every tool that is not read-only"),
    groups: groups.default(() => ({})),
    enable: z.array(z.string().min(1)).default(() => []).describe("Tools shown even when all their groups are off (never past exposure: read_only)"),
    disable: z.array(z.string().min(1)).default(() => []).describe("Tools hidden whatever their groups say"),
  }).strict()
    .refine((t) => !t.enable.some((n) => t.disable.includes(n)), { error: "a tool cannot appear in both tools.enable and tools.disable" })
    .default(() => ({ exposure: "all" as const, groups: {}, enable: [], disable: [] })),
  backend: systemdBackendConfigSchema.optional().describe("systemd backend: type dbus | mock (absent: dbus when PID 1 is systemd, else none: the systemd tools answer unavailable; mock answers say SIMULATED)"),
  state: z.object({
    dir: z.string().startsWith("/").optional().describe("State directory (transactions, audit database, signing key); default $XDG_STATE_HOME/hostgate or /var/lib/hostgate for the system daemon"),
  }).strict().default(() => ({})),
  daemon: z.object({
    socket: z.string().min(1).optional().describe("Where the MCP front reaches a daemon: a socket path or tcp://host:port (or HOSTGATE_SOCKET). Absent: the embedded daemon"),
    token: z.string().min(32, "use at least 32 characters").optional().describe("Token for tcp:// daemon connections (or HOSTGATE_TOKEN)"),
    agent_socket: z.string().startsWith("/").optional().describe("Path of the daemon's agent socket (default <runtime dir>/agent.sock)"),
    admin_socket: z.string().startsWith("/").optional().describe("Path of the daemon's admin socket, mode 0600 (default <runtime dir>/admin.sock)"),
    admin_group: z.string().min(1).optional().describe("Group allowed on the admin socket (mode 0660 then)"),
    agent_group: z.string().min(1).optional().describe("Group of the agent socket (mode 0660), set at every start: members may query, plan and execute with receipts"),
    listen: z.string().min(1).optional().describe("Extra listener for the agent protocol: tcp://127.0.0.1:PORT (needs daemon.token); vsock:// is refused"),
  }).strict().default(() => ({})),
  planner: z.object({
    mode: z.enum(["deterministic", "llm"]).default("deterministic").describe("How plan { intent } is turned into steps"),
    llm: z.object({
      base_url: z.url().describe("OpenAI-compatible endpoint, e.g. http://127.0.0.1:8080/v1"),
      model: z.string().min(1),
      api_key_env: z.string().regex(/^[A-Z_][A-Z0-9_]*$/).optional().describe("Environment variable holding the API key"),
      timeout_ms: z.number().int().min(100).max(120_000).default(20_000),
    }).strict().optional(),
  }).strict().refine((p) => p.mode !== "llm" || p.llm !== undefined, { error: "planner.mode llm needs planner.llm (base_url, model)" }).default(() => ({ mode: "deterministic" as const })),
  approval: z.object({
    same_user: z.enum(["allow", "deny"]).optional()
      .describe("Approvals from the same uid as the front that planned the step (separation: none): deny (default of hostgate daemon) or allow, labelled separation: none (default embedded)"),
    passkey_required_from: z.enum(RISK_LEVELS).optional()
      .describe("Plans with a step of this risk level or higher can be approved only with a passkey in the console (hostgate console); hostgate approve refuses them. Unset: any approval will do (a Cedar @decision(\"require_biometric\") still asks for a passkey)"),
    confirm_window_s: z.number().int().min(1).max(3600).default(120)
      .describe("Seconds a change that can cut you off (firewall, network sysctls) waits for `hostgate confirm <transaction_id>` before the daemon restores the prior state"),
  }).strict().default(() => ({ confirm_window_s: 120 })),
  console: z.object({
    enabled: z.boolean().default(false).describe("Serve the approval console on loopback when the daemon starts (otherwise `hostgate console` starts it)"),
    port: z.number().int().min(0).max(65535).default(7478).describe("Loopback TCP port of the console, served as http://localhost:PORT (0: any free port)"),
    session_idle_minutes: z.number().int().min(1).max(120).default(10).describe("A console session ends after this many minutes without a request"),
    notify: z.object({
      webhook_url: z.url({ protocol: /^https?$/ }).describe("POST {plan_id, host, risk, summary, console_url} here on each new plan (never a secret or the preview body)"),
      timeout_ms: z.number().int().min(100).max(30_000).default(3000).describe("Deadline of one webhook POST; no retries"),
    }).strict().optional(),
  }).strict().default(() => ({ enabled: false, port: 7478, session_idle_minutes: 10 })),
  logs: z.object({
    readable: z.union([z.enum(["adm", "all"]), z.array(z.string().startsWith("/", "list absolute paths under /var/log")).min(1)]).optional()
      .describe("Which logs read_log_file returns: adm (files readable by group adm or everyone; default of the system daemon), all (default embedded), or a list of absolute paths"),
  }).strict().default(() => ({})),
  certificates: z.object({
    dirs: z.array(z.string().startsWith("/", "list absolute directory paths").refine((p) => !/(^|\/)(private|keys?)(\/|$)/.test(p), "a key directory (private/, keys/) is never read")).min(1).max(32).optional()
      .describe("Directories list_certificates walks (3 levels; key files and key directories are never opened); default /etc/letsencrypt/live, /etc/ssl/certs/local, /etc/pki/tls/certs"),
  }).strict().default(() => ({})),
  audit: z.object({
    checkpoint_every: z.number().int().min(1).max(1_000_000).default(1000).describe("Write a signed checkpoint after this many entries"),
    checkpoint_idle_ms: z.number().int().min(0).max(86_400_000).default(30_000).describe("…and this often while the head moved (0: never on a timer)"),
    checkpoint_copy: z.string().startsWith("/").optional().describe("Second place for checkpoint copies: a file path (or a directory ending in /)"),
    secret_patterns: z.array(z.string().min(1)).default(() => []).describe("Extra regular expressions redacted from audit payloads before signing"),
  }).strict().default(() => ({ checkpoint_every: 1000, checkpoint_idle_ms: 30_000, secret_patterns: [] })),
  tracing: z.object({
    enabled: z.boolean().default(false).describe("Export OpenTelemetry traces over OTLP/HTTP (JSON) from the MCP front and the daemon (docs/tracing.md). Also on when OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set; OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none turn it off whatever this says"),
    endpoint: z.url({ protocol: /^https?$/ }).optional().describe("OTLP/HTTP traces URL, e.g. http://127.0.0.1:4318/v1/traces (default that URL); OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, then OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces, win over it"),
    service_name: z.string().min(1).max(128).optional().describe("service.name of the spans (default hostgate-mcp for the front, hostgate-daemon for the daemon; OTEL_SERVICE_NAME wins)"),
  }).strict().default(() => ({ enabled: false })).describe("OpenTelemetry traces (off by default; docs/tracing.md)"),
  inventory: InventoryConfigSchema.default(() => ({})).describe("Inventory backends for search_hosts / exec_on_host (docs/hosts.md)"),
  exec: ExecConfigSchema.default(() => ExecConfigSchema.parse({})).describe("exec_on_host over SSH (docs/hosts.md)"),
  policy: PolicyConfigSchema.default(() => PolicyConfigSchema.parse({})).describe("Policy engine for exec (docs/hosts.md)"),
  risk: RiskConfigSchema.default(() => RiskConfigSchema.parse({})).describe("Risk engine switches for exec"),
  skills: z.object({
    roots: z.array(z.string().startsWith("/", "skill roots are absolute paths")).default(() => []).describe("Folders whose subfolders are skills (read-only), searched after the shipped skills"),
    user_roots: z.boolean().default(true).describe("Embedded daemon only: also read ~/.agents/skills and ~/.claude/skills (the system daemon never reads home folders)"),
    registry: z.object({
      url: z.string().min(1).describe("Registry of digest-pinned releases: https:// URL, http:// on loopback, file:// URL or absolute path"),
      timeout_ms: z.number().int().min(100).max(120_000).default(10_000).describe("Deadline of one registry request"),
    }).strict().optional().describe("Absent: registry references answer source_disabled"),
    install: z.object({
      user_base: z.string().startsWith("/").optional().describe("Base folder of the user scope (default: the home folder, embedded daemon only)"),
      project_base: z.string().startsWith("/").optional().describe("Base folder of the project scope (default: the folder hostgate started in, embedded daemon only)"),
    }).strict().default(() => ({})),
    allow_install: z.boolean().default(false).describe("Offer skills_install_apply and skills_sync_apply (like --allow-install)"),
    allow_exec: z.boolean().default(false).describe("Offer skills_execute for granted entrypoints (like --allow-exec)"),
    rescan_ms: z.number().int().min(0).max(3_600_000).default(5000).describe("How long search and route reuse one scan of the skill roots"),
  }).strict().default(() => ({ roots: [], user_roots: true, install: {}, allow_install: false, allow_exec: false, rescan_ms: 5000 })),
}).strict().superRefine((c, ctx) => {
  // exec.enabled is the one switch of exec_on_host (issue 22); the older keys still work, but never against it.
  const on = c.exec.enabled;
  const say = (path: string[], message: string): void => { ctx.addIssue({ code: "custom", path, message }); };
  if (on === true && c.tools.exposure === "read_only") say(["exec", "enabled"], "exec.enabled: true cannot work with tools.exposure: read_only (exec_on_host runs commands); set tools.exposure: all, or remove exec.enabled");
  if (on === true && c.tools.disable.includes("exec_on_host")) say(["exec", "enabled"], "exec.enabled: true contradicts tools.disable: [exec_on_host]; keep one of them");
  if (on === false && c.tools.enable.includes("exec_on_host")) say(["exec", "enabled"], "exec.enabled: false contradicts tools.enable: [exec_on_host]; to offer exec_on_host write exec.enabled: true (and drop it from tools.enable)");
});

export type Config = z.infer<typeof ConfigSchema>;
