import { z } from "zod";
import { HostIdSchema, PlanResultSchema, ProvenanceSchema, RiskLevelSchema } from "./protocol.ts";

/**
 * Wire schemas of the hosts toolset (search_hosts, list_backends, get_host_details, exec_on_host), shared by
 * the daemon, the MCP tools and the CLI. Field names follow the hosts-exec reference; exec results use
 * DESIGN.md's exec-result words.
 */

const KINDS = ["static", "ssh_config", "known_hosts", "docker"] as const;

export const HostRecordSchema = z.object({
  name: z.string(),
  primary_ip: z.string().describe("Address or DNS name to reach the host (may be empty for containers without an IP)"),
  provider: z.enum(KINDS),
  backend: z.string(),
  meta: z.record(z.string(), z.string()),
  tags: z.array(z.string()),
});

export const BackendErrorSchema = z.object({ backend: z.string(), kind: z.enum(KINDS), code: z.string(), message: z.string() });

/**
 * Arguments of the reference's host tools that hostgate does not take, with the reason a model is told when it
 * passes one. They are left out of the published inputSchema (issue 22: no `maxLength: 0` parameters) and refused
 * as unknown keys, with this reason instead of a bare "unrecognized key".
 */
const NOT_TAKEN: Record<string, string> = {
  cache_dir: "cache_dir is set in the config only (hosts.inventory[].cache_dir): a tool does not choose where the daemon writes",
  config_path: "config_path is not accepted: the daemon reads its own config only",
};

/** zod's error option for a strict object whose unknown keys may be NOT_TAKEN ones: names the reason. */
const notTaken = {
  error: (issue: { code?: string; keys?: string[] }): string | undefined => {
    if (issue.code !== "unrecognized_keys" || !issue.keys) return undefined;
    const reasons = issue.keys.filter((k) => k in NOT_TAKEN).map((k) => NOT_TAKEN[k]!);
    if (reasons.length === 0) return undefined;
    const others = issue.keys.filter((k) => !(k in NOT_TAKEN));
    return [...reasons, ...(others.length > 0 ? [`unknown key(s) ${others.map((k) => JSON.stringify(k)).join(", ")}`] : [])].join("; ");
  },
};

export const SearchHostsInputSchema = z.strictObject({
  name: z.string().max(256).optional().describe("Matches name or address"),
  name_regex: z.string().max(256).optional(),
  tags: z.string().max(1024).optional().describe("Comma-separated tags, all required"),
  providers: z.string().max(256).optional().describe("Comma-separated: static, ssh_config, known_hosts, docker"),
  backends: z.string().max(1024).optional(),
  ssh_user: z.string().max(64).optional(),
  cache_ttl: z.number().int().min(0).max(86_400).optional().describe("Seconds"),
  no_cache: z.boolean().optional(),
  refresh: z.boolean().optional(),
  overrides: z.record(z.string(), z.record(z.string(), z.unknown())).optional().describe("By backend or kind: {timeout_ms}, docker also {all, label}"),
  limit: z.number().int().min(1).max(1000).optional(),
  cursor: z.string().max(256).optional(),
}, notTaken);
export type SearchHostsInput = z.infer<typeof SearchHostsInputSchema>;

export const SearchHostsOutputSchema = z.object({
  records: z.array(HostRecordSchema.extend({ ssh_user: z.string().optional() })),
  count: z.number().int().describe("Matching records in all pages"),
  next_cursor: z.string().nullable(),
  errors: z.array(BackendErrorSchema).describe("Backends that failed or timed out; the others' records are still here"),
  backends: z.array(z.object({ name: z.string(), kind: z.enum(KINDS), cached: z.boolean(), hosts: z.number().int(), duration_ms: z.number() })),
});
export type SearchHostsOutput = z.infer<typeof SearchHostsOutputSchema>;

export const ListBackendsInputSchema = z.strictObject({}, notTaken);
export const ListBackendsOutputSchema = z.object({
  backends: z.array(z.object({ kind: z.enum(KINDS), name: z.string(), hint: z.string(), notes: z.array(z.string()) })),
  defaulted: z.boolean().describe("true when no inventory is configured and the user's ~/.ssh/config and known_hosts are used"),
});

export const CAPABILITIES = ["ssh", "docker_exec", "systemd", "hostgate_daemon"] as const;
export const GetHostDetailsInputSchema = z.strictObject({
  name: HostIdSchema,
  provider: z.string().max(64).optional().describe("Kind or backend"),
  probe: z.boolean().optional().describe("SSH check"),
});
export const GetHostDetailsOutputSchema = z.object({
  record: HostRecordSchema,
  ssh: z.object({ host: z.string(), port: z.number().int(), user: z.string().nullable(), proxy_jump: z.array(z.string()) }).nullable(),
  capabilities: z.array(z.enum(CAPABILITIES)),
  probe: z.object({
    ran: z.boolean(),
    error: z.string().nullable(),
    sandbox: z.string().nullable().describe("How commands that run without approval are confined on this host and who they run as (mechanism; a uid of its own per run for a root login, the login itself otherwise), or why none: then they are refused; null when not probed"),
  }),
});

/** exec_on_host's targets: the one host-name rule of every tool (ipc/protocol.ts HostIdSchema). */
const TargetName = HostIdSchema;
export const ExecOnHostInputSchema = z.strictObject({
  host: TargetName.optional().describe("From search_hosts, or an ssh_config alias, IP or DNS name"),
  hosts: z.array(TargetName).min(1).max(1000).optional().describe("Fan-out; identical outputs grouped"),
  name: z.string().max(256).optional().describe("Display label"),
  command: z.string().min(1),
  shell: z.enum(["bash", "sh"]).optional().describe("Omit for the login shell"),
  timeout_sec: z.number().int().min(0).max(3600).optional().describe("0 = none; default 60"),
}).refine((v) => (v.host === undefined) !== (v.hosts === undefined), { error: "pass exactly one of host or hosts" });
export type ExecOnHostInput = z.infer<typeof ExecOnHostInputSchema>;

export const ExecHostResultSchema = z.object({
  host: z.string().describe("Display name"),
  ip: z.string().describe("Address dialed"),
  exit_code: z.number().int().nullable(),
  signal: z.string().nullable(),
  timed_out: z.boolean(),
  duration_ms: z.number(),
  stdout: z.string(),
  stderr: z.string(),
  truncated: z.boolean(),
  error: z.string().describe("Empty when the command ran to an exit status"),
  code: z.string().nullable().describe("Stable error code when the host was not reached or the command was refused"),
  group: z.number().int().nullable().describe("Fan-out: index into groups, where this host's stdout/stderr are stated once (then empty here)"),
  sandbox: z.string().nullable().describe("How the command was confined on this host (mechanism, identity, network), or null when it did not run"),
});
export type ExecHostResult = z.infer<typeof ExecHostResultSchema>;

export const ExecOnHostOutputSchema = z.object({
  results: z.array(ExecHostResultSchema).describe("One per host, in request order (for a fan-out whose outputs repeat, see groups)"),
  groups: z.array(z.object({
    hosts: z.array(z.string()),
    exit_code: z.number().int().nullable(),
    signal: z.string().nullable(),
    stdout: z.string(),
    stderr: z.string(),
    error: z.string(),
  })).describe("Fan-out only: hosts with identical outcome and output, stated once"),
  decision: z.object({
    decision: z.enum(["allow", "deny", "require_approval", "require_biometric"]),
    risk_level: RiskLevelSchema,
    reasons: z.array(z.string()),
  }),
});
export type ExecOnHostOutput = z.infer<typeof ExecOnHostOutputSchema>;

/**
 * What the daemon answers: the results (empty when a plan was made instead), and `plan` when a policy said
 * require_approval: RunCommand transactions for a human to approve with `hostgate approve`, then `execute`.
 */
export const ExecOnHostResultSchema = ExecOnHostOutputSchema.extend({
  plan: PlanResultSchema.nullable().describe("Set when the policy requires a human approval: nothing ran; approve, then execute"),
});
export type ExecOnHostResult = z.infer<typeof ExecOnHostResultSchema>;

/**
 * The exec_on_host method's answer on the daemon protocol: the tool's result plus `meta`, the provenance of the
 * output (hosts, time, untrusted, `redactions`: secrets replaced in it), which the MCP front moves into `_meta`
 * as it does for every read-only answer; null when nothing ran (a plan was made instead).
 */
export const ExecOnHostAnswerSchema = ExecOnHostResultSchema.extend({ meta: ProvenanceSchema.nullable() });
export type ExecOnHostAnswer = z.infer<typeof ExecOnHostAnswerSchema>;

/**
 * read_on_hosts (issue 20): one read-only direct tool on several hosts. `tool` is the direct tool's name
 * (`get_disk_usage`), `arguments` its own arguments (without `host`), `hosts` the hosts (1–100, `local` allowed).
 * The daemon's `query { hosts }` runs it; the answer is {@link ReadOnHostsResultSchema}.
 */
export const ReadOnHostsInputSchema = z.object({
  // Checked as refinements, which the published schema leaves out (the default tools/list budget,
  // test/helpers/context-cost.ts); the daemon checks each host name again.
  tool: z.string().superRefine((v, c) => { if (!/^[a-z][a-z0-9_]{0,63}$/.test(v)) c.addIssue({ code: "custom", message: "a read-only tool's name, e.g. get_disk_usage" }); }).describe("A read-only tool, e.g. get_disk_usage"),
  hosts: z.array(HostIdSchema).min(1).max(100),
  arguments: z.record(z.string(), z.unknown()).optional().describe("Its arguments"),
}).strict();
export type ReadOnHostsInput = z.infer<typeof ReadOnHostsInputSchema>;

/**
 * read_on_hosts' answer: the daemon's fan-out data (protocol.ts FanOutDataSchema) as is. `groups`: identical
 * (redacted) answers, each with the hosts that gave it in request order (`data` is that tool's own answer, its
 * outputSchema); `errors`: one per host that gave no answer (refused, unreachable, timed out…), never dropped.
 */
export const ReadOnHostsResultSchema = z.object({
  groups: z.array(z.object({ hosts: z.array(z.string()), data: z.record(z.string(), z.unknown()).describe("The tool's own answer (its outputSchema)") })),
  errors: z.array(z.object({ host: z.string(), code: z.string(), message: z.string(), hint: z.string().optional() })),
});
