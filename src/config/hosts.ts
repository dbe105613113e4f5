import { z } from "zod";
import { commonFields, pathField } from "../core/inventory/providers/fields.ts";
import { PROVIDERS } from "../core/inventory/providers/index.ts";
import { StaticHostSchema } from "../core/inventory/providers/static.ts";

/**
 * Configuration of the hosts feature: `inventory.providers[]`, `exec.*`, `policy.*`, `risk.disabled`
 * (strict: unknown keys are errors). Paths are absolute or start with `~/` (the daemon user's home).
 */

const path = pathField;

type Definition = (typeof PROVIDERS)[number];
/** The config section of one provider kind: its kind, the common fields, its own fields; strict. */
type Flat<T> = { [K in keyof T]: T[K] };
type Variant<D> = D extends { kind: infer K extends string; fields: infer F extends z.ZodRawShape } ? z.ZodObject<Flat<{ kind: z.ZodLiteral<K> } & typeof commonFields & F>, z.core.$strict> : never;
type VariantsOf<T extends readonly unknown[]> = { -readonly [I in keyof T]: Variant<T[I]> };
type Variants = VariantsOf<typeof PROVIDERS>;
const variant = (d: Definition): z.ZodObject => z.object({ kind: z.literal(d.kind), ...commonFields, ...d.fields }).strict();

export { StaticHostSchema };
export type StaticHost = z.infer<typeof StaticHostSchema>;

/** `inventory.providers[]`: one variant per kind of the provider registry (core/inventory/providers/index.ts). */
export const ProviderConfigSchema = z.discriminatedUnion("kind", PROVIDERS.map(variant) as unknown as Variants);
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
  accept_login_groups: z.array(z.string().regex(/^[\w.@-]{1,64}$/, "a group name (letters, digits, . _ @ -)")).max(64).default([]).describe("Supplementary groups a non-root SSH login may keep inside the sandbox of unapproved commands (bubblewrap cannot drop them; a login in any other group but adm and systemd-journal runs nothing unapproved). RISK: every unapproved command then reaches what these groups reach (a group-owned 0660 socket; docker is root). Prefer a login without them, or become: sudo"),
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
 * kind (each provider definition's `overrides`). Precedence: override → the backend's config → the default.
 * Paths and sockets are not overridable (a tool must not choose which files or sockets the daemon reads).
 */
export const OverrideSchemas = Object.fromEntries(PROVIDERS.map((d) => [d.kind, z.object(d.overrides).strict()])) as unknown as {
  [D in Definition as D["kind"]]: z.ZodObject<D["overrides"], z.core.$strict>;
};
