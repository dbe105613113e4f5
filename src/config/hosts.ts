import { z } from "zod";

/**
 * Configuration of the hosts feature: `inventory.providers[]`, `exec.*`, `policy.*`, `risk.disabled`
 * (strict: unknown keys are errors). Paths are absolute or start with `~/` (the daemon user's home).
 */

const path = z.string().min(1).refine((p) => p.startsWith("/") || p.startsWith("~/"), { error: "use an absolute path or ~/…" });
const name = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, "letters, digits, '_', '.', '-' (max 64)");
const tag = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.:=-]{0,63}$/, "letters, digits and _.:=- (max 64)");

/** Settings every provider kind has. `cache_ttl` in seconds (0 = no cache); `timeout_ms` bounds one listing. */
const common = {
  name: name.refine((n) => n !== "literal", { error: "\"literal\" is reserved: policies see backend \"literal\" for hosts no backend lists" }).optional().describe("Backend name (default: the kind); unique; not \"literal\" (reserved for hosts no backend lists)"),
  timeout_ms: z.number().int().min(50).max(60_000).default(2000).describe("A listing slower than this is abandoned and reported as this backend's error"),
  cache_ttl: z.number().int().min(0).max(86_400).default(60).describe("Seconds a listing is reused (0: never cached)"),
  cache_dir: path.optional().describe("Directory where listings are also kept across restarts (default: memory only)"),
  tags: z.array(tag).max(32).default(() => []).describe("Tags added to every host of this backend (policies see them)"),
  become: z.enum(["none", "sudo"]).optional().describe("How approved changes get root on this backend's hosts when the SSH login is not root: none (log in as root) or sudo (`sudo -n`: needs a NOPASSWD rule; hostgate never sends a password). Default none"),
};

export const StaticHostSchema = z.object({
  name: name.describe("Inventory name (what exec_on_host { host } accepts)"),
  address: z.string().min(1).max(255).describe("IP or DNS name to dial"),
  port: z.number().int().min(1).max(65535).default(22),
  user: z.string().min(1).max(64).optional().describe("Login user (default exec.user)"),
  become: z.enum(["none", "sudo"]).optional().describe("How approved changes get root on this host when the login is not root (default: the backend's become, else none)"),
  tags: z.array(tag).max(32).default(() => []),
  meta: z.record(z.string().regex(/^[a-z][a-z0-9_]{0,31}$/), z.string().max(256)).default(() => ({})),
}).strict();
export type StaticHost = z.infer<typeof StaticHostSchema>;

export const ProviderConfigSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("static"), ...common, hosts: z.array(StaticHostSchema).max(100_000).describe("The hosts") }).strict(),
  z.object({
    kind: z.literal("ssh_config"),
    ...common,
    files: z.array(path).min(1).optional().describe("Client config files in order (default ~/.ssh/config then /etc/ssh/ssh_config)"),
  }).strict(),
  z.object({
    kind: z.literal("known_hosts"),
    ...common,
    files: z.array(path).min(1).optional().describe("known_hosts files (default ~/.ssh/known_hosts); hashed entries cannot be listed"),
  }).strict(),
  z.object({
    kind: z.literal("docker"),
    ...common,
    socket: path.default("/var/run/docker.sock").describe("Docker Engine API Unix socket (podman: /run/podman/podman.sock)"),
    all: z.boolean().default(false).describe("Also list stopped containers"),
    label: z.string().max(256).optional().describe("Only containers with this label (key or key=value)"),
  }).strict(),
]);
export type ProviderConfig = z.infer<typeof ProviderConfigSchema>;

export const InventoryConfigSchema = z.object({
  providers: z.array(ProviderConfigSchema).max(64).optional().describe("Inventory backends; absent: the user's ~/.ssh/config and ~/.ssh/known_hosts"),
}).strict().refine((i) => {
  const names = (i.providers ?? []).map((p) => p.name ?? p.kind);
  return new Set(names).size === names.length;
}, { error: "inventory.providers: backend names must be unique (set name: on repeated kinds)" });

export const ExecConfigSchema = z.object({
  enabled: z.boolean().optional().describe("true offers exec_on_host to AI clients (off by default; it still needs a policy: docs/hosts.md). false hides it whatever tools.* say"),
  allow_unverified: z.boolean().default(false).describe("Run commands with no policy configured (risk engine only). NOT for AI clients; doctor warns loudly"),
  host_keys: z.enum(["strict", "tofu"]).default("strict").describe("strict: unknown host keys are refused; tofu: recorded on first use (audited)"),
  known_hosts: z.array(path).optional().describe("known_hosts files checked before connecting (default ~/.ssh/known_hosts, /etc/ssh/ssh_known_hosts; system daemon: <state>/known_hosts too)"),
  user: z.string().min(1).max(64).optional().describe("Login user when neither the inventory nor ssh_config names one (default: the daemon's user)"),
  identity_files: z.array(path).optional().describe("Private keys tried after the agent (default ~/.ssh/id_ed25519, id_ecdsa, id_rsa; system daemon: <state>/ssh/id_ed25519)"),
  use_agent: z.boolean().default(true).describe("Use SSH_AUTH_SOCK when set (embedded mode)"),
  connect_timeout_ms: z.number().int().min(100).max(60_000).default(5000),
  idle_close_ms: z.number().int().min(100).max(3_600_000).default(60_000).describe("Close a pooled connection after this long without a command"),
  max_sessions: z.number().int().min(1).max(64).default(8).describe("Commands at once per host (keep below the server's MaxSessions, 10 by default)"),
  max_output_bytes: z.number().int().min(1024).max(1024 * 1024).default(256 * 1024).describe("Bytes kept per stream per host; more is cut and marked truncated"),
  fanout_concurrency: z.number().int().min(1).max(256).default(32).describe("Hosts contacted at once by exec_on_host { hosts: [...] }"),
  max_hosts: z.number().int().min(1).max(1000).default(100).describe("Most hosts in one fan-out call"),
  max_timeout_sec: z.number().int().min(1).max(3600).default(300).describe("Longest an unapproved (sandboxed) command runs, in seconds; timeout_sec 0 or more means this"),
  max_per_caller: z.number().int().min(1).max(256).default(4).describe("exec_on_host calls one caller (peer uid, or connection over TCP) may have running at once; more are refused busy"),
}).strict();
export type ExecConfig = z.infer<typeof ExecConfigSchema>;

export const PolicyConfigSchema = z.object({
  engine: z.enum(["cedar"]).default("cedar").describe("Policy engine (OPA is not offered: it could not be tested here)"),
  dir: path.optional().describe("Directory of *.cedar policies (reloaded on SIGHUP); absent: no policy, so exec is refused unless exec.allow_unverified"),
}).strict();
export type PolicyConfig = z.infer<typeof PolicyConfigSchema>;

export const RiskConfigSchema = z.object({
  disabled: z.boolean().default(false).describe("Skip the risk engine's decision for exec (critical commands stay refused). Trusted automation only; doctor warns loudly"),
}).strict();

/**
 * Per-request `search_hosts { overrides: { <backend name or kind>: {…} } }`: the fields a request may change, per
 * kind. Precedence: override → the backend's config → the default. Paths and sockets are not overridable (a
 * tool must not choose which files or sockets the daemon reads).
 */
export const OverrideSchemas = {
  static: z.object({ timeout_ms: z.number().int().min(50).max(60_000).optional() }).strict(),
  ssh_config: z.object({ timeout_ms: z.number().int().min(50).max(60_000).optional() }).strict(),
  known_hosts: z.object({ timeout_ms: z.number().int().min(50).max(60_000).optional() }).strict(),
  docker: z.object({
    timeout_ms: z.number().int().min(50).max(60_000).optional(),
    all: z.boolean().optional().describe("Also list stopped containers"),
    label: z.string().max(256).optional().describe("Only containers with this label"),
  }).strict(),
} as const;
