import { z } from "zod";
import { HOST_ID_PATTERN, HOST_NAME_RULE } from "../core/host-id.ts";
import { RISK_LEVELS } from "../core/risk-level.ts";
import { TOOLSETS, type ExposureSettings } from "../core/toolsets.ts";

/**
 * The daemon protocol: what the MCP front may ask the daemon and the shapes of the answers. The same
 * schemas serve the in-process (embedded) client and the socket client, so the two are interchangeable.
 * Bump PROTOCOL_VERSION on any incompatible change.
 */
export const PROTOCOL_VERSION = 2;

/**
 * A host name on the wire (core/host-id.ts HOST_ID_PATTERN, the one rule of every tool that takes a host:
 * query/direct tools, plan, history, exec_on_host, plan_command's target, get_host_details); absent means `local`.
 */
export const HostIdSchema = z.string()
  // Checked in code rather than as `maxLength` + `pattern`: every published inputSchema with a host stays `{"type":
  // "string"}` like the direct tools' HOST_PROPERTY (context cost, issue 14); the message says the rule.
  .refine((s) => s.length <= 253, { error: "a host name has at most 253 characters", abort: true })
  .refine((s) => HOST_ID_PATTERN.test(s), { error: HOST_NAME_RULE });

export const RiskLevelSchema = z.enum(RISK_LEVELS);
export const AccessSchema = z.enum(["read_only", "mutating"]);

/** A catalogue action as the front sees it: enough to advertise a direct tool, nothing to run it. */
export const ActionDescriptorSchema = z.object({
  action: z.string(),
  title: z.string(),
  description: z.string(),
  input_schema: z.record(z.string(), z.unknown()),
  output_schema: z.record(z.string(), z.unknown()),
  access: AccessSchema,
  risk_level: RiskLevelSchema,
  toolsets: z.array(z.enum(TOOLSETS)),
  host_derived: z.boolean(),
});
export type ActionDescriptor = z.infer<typeof ActionDescriptorSchema>;

/** One contacted inventory host as describe and doctor show it (issue 20; app/host-systemd.ts). */
export const HostSystemdViewSchema = z.object({
  host: z.string(),
  hostname: z.string(),
  family: z.string(),
  /** What the host offers (core/catalogue/needs.ts): files, exec, systemd, mutate. */
  capabilities: z.array(z.string()),
  /** How its systemd is reached: its own D-Bus over SSH, systemctl's text, not at all, or unknown (typed ports not built). */
  systemd: z.enum(["dbus_bridge", "systemctl", "none", "unknown"]),
  detail: z.string(),
});
export type HostSystemdView = z.infer<typeof HostSystemdViewSchema>;

/**
 * The daemon's exposure settings on the wire (core/toolsets.ts ExposureSettings: its config `tools.*` and the
 * switches of off-by-default tools, `exec.enabled`). The daemon's gate (app/exposure.ts) judges every method by
 * THE rule `exposureOf` over these; the front lists its tools by the same rule over the same settings, so it
 * lists exactly what the daemon serves (issue 19: the daemon decides what is offered). A switch that is not set
 * is absent.
 */
export const ExposureSettingsSchema = z.object({
  exposure: z.enum(["all", "read_only"]),
  groups: z.partialRecord(z.enum(TOOLSETS), z.boolean()).readonly(),
  enable: z.array(z.string()).readonly(),
  disable: z.array(z.string()).readonly(),
  switches: z.record(z.string(), z.boolean().optional()).readonly(),
}) satisfies z.ZodType<ExposureSettings>;

export const DescribeResultSchema = z.object({
  protocol_version: z.number(),
  /** The daemon's build (ipc/prebuilt.ts thisBuild); absent from daemons older than this field, which a front treats as another build. */
  build: z.object({ version: z.string(), id: z.string() }).optional(),
  host: z.object({ hostname: z.string(), family: z.string() }),
  actions: z.array(ActionDescriptorSchema),
  /** Inventory hosts whose context is built, with their systemd path; absent when none is (describe never dials). */
  hosts: z.array(HostSystemdViewSchema).optional(),
  /**
   * Actions that cannot run on this daemon's own host, by action name → a short reason (app/local-availability.ts:
   * no systemd, no journal). Reads' direct tools stay listed (they take `host`) and say so; find_actions marks reads
   * and changes `available: false`.
   */
  local_unavailable: z.record(z.string(), z.string()).optional(),
  /**
   * What this daemon offers: its exposure settings ({@link ExposureSettingsSchema}), which the front lists its tools
   * by. Absent from daemons older than this field (a compatible addition: no protocol version bump); a front then
   * says it cannot know what that daemon offers (cli/front-client.ts, mcp/server.ts).
   */
  exposure: ExposureSettingsSchema.optional(),
});
export type DescribeResult = z.infer<typeof DescribeResultSchema>;

/**
 * How far a long call is (issue 24): MCP's notifications/progress fields. `progress` only grows; `total` when known
 * (steps of an execute); `message` says what runs, e.g. "step 1/2 InstallPackage: running, 10 s".
 */
export interface Progress { progress: number; total?: number; message?: string }

/** Provenance of host-derived data (DESIGN.md: results carry `_meta` with an untrusted flag and provenance). */
export const ProvenanceSchema = z.object({
  /** Host id (`local` or an inventory name). */
  host: z.string(),
  /** The host's own name (uname nodename). */
  hostname: z.string(),
  action: z.string(),
  at: z.string(),
  duration_ms: z.number(),
  untrusted: z.boolean(),
  /** Secrets replaced in the answer (`[redacted:<kind>]`). */
  redactions: z.number(),
  /** A fan-out (exec_on_host { hosts }): every host named, in request order (`host` is then the first). */
  hosts: z.array(z.string()).optional(),
  /** True when the data comes from the mock systemd backend, not this host's manager. */
  simulated: z.boolean().optional(),
});

/** An error on the wire: a stable code, what happened, what to do, and structured context (core/errors.ts errorBody: redacted, ≤ 16 KiB). */
export const ErrorBodySchema = z.object({ code: z.string(), message: z.string(), hint: z.string().optional(), details: z.record(z.string(), z.unknown()).optional() });
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

/**
 * `query`: one read-only action on `host` (default `local`), or fanned out to `hosts` (not both): then the
 * value's `data` is a {@link FanOutDataSchema}.
 */
export const QueryParamsSchema = z.object({ action: z.string().min(1).max(128), args: z.unknown(), host: HostIdSchema.optional(), hosts: z.array(HostIdSchema).min(1).max(100).optional() })
  .refine((p) => !(p.host !== undefined && p.hosts !== undefined), { error: "give host or hosts, not both" });
/**
 * A fanned-out query's data: identical (redacted) answers grouped with the hosts that gave them, in request
 * order; one entry per host that failed, with its error code, message and hint (never dropped).
 */
export const FanOutDataSchema = z.object({
  groups: z.array(z.object({ hosts: z.array(z.string()), data: z.record(z.string(), z.unknown()) })),
  errors: z.array(z.object({ host: z.string(), code: z.string(), message: z.string(), hint: z.string().optional() })),
});
export type FanOutData = z.infer<typeof FanOutDataSchema>;
/** A successful query: the action's (redacted) output and its provenance. */
export const QueryValueSchema = z.object({ data: z.record(z.string(), z.unknown()), meta: ProvenanceSchema });
export type QueryValue = z.infer<typeof QueryValueSchema>;
/** What a query answers: the value, or an error with a stable code. */
export type QueryResult = Outcome<QueryValue>;

/** A preview as it travels: what a human reads at approve time and what the model shows the user. */
export const PreviewSchema = z.object({
  summary: z.string(),
  text: z.string(),
  current: z.unknown().optional(),
  intended: z.unknown().optional(),
  /** Loud warnings for a human (e.g. essential packages removed), also in `text`; part of the output schema (issue 14). */
  warnings: z.array(z.string()).optional(),
  /** A step that reverts unless confirmed (issue 24): the daemon restores the prior state this long after apply unless `hostgate confirm` arrives. */
  confirm: z.object({ window_s: z.number().describe("Seconds after apply") }).optional(),
});

const StepRequestSchema = z.object({ action: z.string().min(1).max(128), params: z.record(z.string(), z.unknown()).default({}) }).strict();

/**
 * `plan`: an intent for the planner, or explicit catalogue steps (exactly one of the two). Nothing is executed.
 * Published flat (issue 22): a top-level `oneOf`/`anyOf`/`allOf` in a tool's inputSchema makes a major model
 * API reject the whole request (test/tool-schemas.test.ts lists the sources), so "intent or steps" is a
 * refinement the JSON Schema does not show, checked by the front for a precise error and by the daemon.
 */
export const PlanInputSchema = z.object({
  intent: z.string().min(1).max(1024).optional().describe("What to change, in words (or give steps)"),
  steps: z.array(StepRequestSchema).min(1).max(20).optional().describe("Catalogue actions with their params (or give intent)"),
  host: HostIdSchema.optional(),
}).strict().superRefine((v, ctx) => {
  if ((v.intent === undefined) !== (v.steps === undefined)) return;
  ctx.addIssue({
    code: "custom",
    message: v.intent === undefined
      ? 'give either "intent" (what to change, in words) or "steps" (catalogue actions with their params), e.g. {"steps":[{"action":"RestartService","params":{"unit":"nginx.service"}}]}'
      : 'give "intent" or "steps", not both: steps are planned as given, an intent is turned into steps by the planner',
  });
});
export type PlanInput = z.infer<typeof PlanInputSchema>;

export const PlannedStepSchema = z.object({
  transaction_id: z.string(),
  action_name: z.string(),
  host: z.string(),
  params: z.record(z.string(), z.unknown()),
  access: AccessSchema,
  risk_level: RiskLevelSchema,
  preview: PreviewSchema,
  preview_hash: z.string(),
  expires_at: z.string(),
  console_url: z.string().optional().describe("The approval console's page of this step (when the console runs): the human approves there"),
});
/** A read-only step plan left out: it changes nothing, so it needs no approval; the tool answers it directly. */
export const ReadOnlyStepSchema = z.object({ action_name: z.string(), tool: z.string(), params: z.record(z.string(), z.unknown()) });
export const PlanResultSchema = z.object({
  plan_id: z.string().describe("`hostgate approve <plan_id>` approves all steps; one receipt"),
  planner: z.enum(["deterministic", "llm", "explicit"]),
  steps: z.array(PlannedStepSchema),
  /** Present when read-only steps were asked for beside changes: not planned, call these tools instead. */
  read_only: z.array(ReadOnlyStepSchema).optional().describe("Read-only steps left out (they need no approval): call these tools directly"),
  next: z.string(),
});
export type PlanResult = z.infer<typeof PlanResultSchema>;

export const StepToExecuteSchema = z.object({
  transaction_id: z.string().min(1).max(64),
  action_name: z.string().min(1).max(128),
  params: z.record(z.string(), z.unknown()),
  approval_receipt: z.string().max(256).optional(),
  host: HostIdSchema.optional(),
}).strict();
/**
 * `execute`: steps as plan returned them, in plan order. A plan's one receipt goes on each step, or once at the
 * top level for the steps that omit it (flat: no top-level combinator, issue 22).
 */
export const ExecuteInputSchema = z.object({
  steps: z.array(StepToExecuteSchema).min(1).max(20),
  approval_receipt: z.string().max(256).optional().describe("The plan's receipt, for steps without one"),
}).strict();
/** What a valid execute call looks like, for the errors a malformed one gets (ipc/methods.ts `example`). */
export const EXECUTE_EXAMPLE = '{"steps":[{"transaction_id":"046110b2-253f-4cff-ab0e-349d69684139","action_name":"WriteFile","params":{"path":"/srv/www/maintenance.txt","content":"…"},"approval_receipt":"hgr_…"}]}: each step\'s transaction_id, action_name and params exactly as plan returned them (1 to 20 steps), and the receipt `hostgate approve <plan_id>` printed for their plan (on each step, or once as a top-level approval_receipt)';
export type ExecuteInput = z.infer<typeof ExecuteInputSchema>;

export const CheckpointRefSchema = z.object({ seq: z.number(), hash: z.string() }).nullable();
export const StepResultSchema = z.object({
  transaction_id: z.string(),
  action_name: z.string(),
  status: z.enum(["succeeded", "failed", "refused", "skipped"]),
  output: z.unknown(),
  error: ErrorBodySchema.nullable(),
  duration_ms: z.number(),
  /** Separation of the approval the step ran on (null when it did not get that far). `none`: not a separated human approval. */
  separation: z.enum(["separated", "none"]).nullable(),
  /** A step that reverts unless confirmed (issue 24): applied; the human must run `command` before `deadline`. */
  confirm: z.object({
    state: z.literal("awaiting_confirm"),
    window_s: z.number(),
    deadline: z.string().describe("ISO 8601: the daemon restores the prior state at this time unless confirmed"),
    command: z.string().describe("What the human runs in a terminal to keep the change"),
  }).optional(),
});
export type StepResult = z.infer<typeof StepResultSchema>;
export const ExecuteResultSchema = z.object({ results: z.array(StepResultSchema), halted: z.boolean(), checkpoint: CheckpointRefSchema.describe("Audit witness for the user: `hostgate audit verify --witness seq:hash` is intact while this is the newest entry") });
export type ExecuteResult = z.infer<typeof ExecuteResultSchema>;

export const HistoryInputSchema = z.object({
  status: z.enum(["planned", "approved", "rejected", "executing", "awaiting_confirm", "reverting", "succeeded", "failed", "unknown", "reverted", "expired", "refused"]).optional(),
  action: z.string().max(128).optional(),
  host: HostIdSchema.optional(),
  since: z.string().max(64).optional().describe("ISO 8601"),
  limit: z.number().int().min(1).max(500).default(50),
}).strict();
export type HistoryInput = z.infer<typeof HistoryInputSchema>;
/**
 * Who did it (core/caller.ts actorView): the kernel's uid/gid/pid of the connection, the socket and role, and the
 * MCP client's own name (untrusted); an actor recorded as other text (older entries, the daemon itself) is `raw`.
 */
export const HistoryActorSchema = z.object({
  client: z.string().optional().describe("The MCP client's name as it said (untrusted)"),
  uid: z.number().int().optional(),
  gid: z.number().int().optional(),
  pid: z.number().int().optional(),
  role: z.enum(["observer", "operator", "admin"]).optional(),
  socket: z.enum(["agent", "admin", "tcp", "in_process"]).optional(),
  label: z.string().optional(),
  raw: z.string().optional().describe("An actor recorded as free text (older entries, the daemon itself), as written"),
});
export const HistoryEntrySchema = z.object({
  seq: z.number(),
  time: z.string(),
  kind: z.string(),
  actor: HistoryActorSchema,
  host: z.string(),
  transaction_id: z.string().nullable(),
  action: z.string().nullable(),
  status: z.string().nullable(),
  detail: z.string().nullable(),
  /** On approvals and executions: the approval's separation (`none` = not a separated human approval). */
  separation: z.enum(["separated", "none"]).nullable(),
  /**
   * On approvals: how it was given (terminal, same-user, passkey; test in tests) and, for a passkey, the name its
   * owner enrolled it under; null on other entries and on approvals recorded before issue 23.
   */
  approval: z.object({ method: z.enum(["terminal", "same-user", "passkey", "test"]), approver: z.string().nullable() }).nullable(),
});
export const HistoryResultSchema = z.object({ entries: z.array(HistoryEntrySchema) });
export type HistoryResult = z.infer<typeof HistoryResultSchema>;

export const DoctorCheckSchema = z.object({ name: z.string(), status: z.enum(["ok", "warn", "fail"]), detail: z.string() });
export const DoctorResultSchema = z.object({ checks: z.array(DoctorCheckSchema) });
export type DoctorResult = z.infer<typeof DoctorResultSchema>;

/** One step of a plan as `hostgate approve` shows it: everything the receipt will open, exactly. */
export const ShowStepSchema = z.object({
  transaction_id: z.string(),
  /** Place in the plan, from 1: steps run in this order. */
  seq: z.number(),
  action_name: z.string(),
  host: z.string(),
  params: z.record(z.string(), z.unknown()),
  risk_level: RiskLevelSchema,
  state: z.string(),
  preview: PreviewSchema,
  preview_hash: z.string(),
  expires_at: z.string(),
  /**
   * Its approval, once approved: when, by whom (the actor as an object), the separation, and how (method and, for a
   * passkey, the approver's name, from the plan's `approve` audit entry; null when the chain has none).
   */
  approval: z.object({
    approved_at: z.string(), approved_by: HistoryActorSchema, separation: z.enum(["separated", "none"]).nullable(),
    method: z.enum(["terminal", "same-user", "passkey", "test"]).nullable(), approver: z.string().nullable(),
  }).nullable(),
  /** What running it did, once it ran: the error (null: none), and a confirm window's deadline and confirmation (issue 24). */
  outcome: z.object({
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    confirm_deadline: z.string().nullable(), confirmed_at: z.string().nullable(), confirmed_by: HistoryActorSchema.nullable(),
  }).nullable(),
});
export type ShowStep = z.infer<typeof ShowStepSchema>;
/** What `hostgate approve` shows before asking: one plan, every step of it. */
export const ShowResultSchema = z.object({
  plan_id: z.string(),
  /** The highest step risk: it decides the confirmation word. */
  risk_level: RiskLevelSchema,
  steps: z.array(ShowStepSchema),
  created_at: z.string(),
  actor: z.string(),
  /** Who planned it: the front's MCP client name (untrusted, as it said in initialize) and uid, the planner, the intent text. */
  planned_by: z.object({
    client: z.string().nullable(),
    uid: z.number().nullable(),
    planner: z.enum(["explicit", "deterministic", "llm"]).nullable(),
    intent: z.string().nullable(),
  }),
  /**
   * The separation an approval from this same connection would get, from the kernel's facts (core/approval.ts),
   * shown before the human types anything; `refused`: approval.same_user deny would refuse it.
   */
  approval: z.object({
    separation: z.enum(["separated", "none"]), facts: z.string(), refused: z.boolean(),
    /** Why only a passkey approval (the console) can mint this plan's receipt, or null (core/approval-proof.ts). */
    passkey_required: z.string().nullable(),
  }),
});
export type ShowResult = z.infer<typeof ShowResultSchema>;
/** How an approval was given (core/approval-proof.ts ApprovalMethod). */
export const ApprovalMethodSchema = z.enum(["terminal", "same-user", "passkey", "test"]);
/** separated: approver and planner are different uids (not both root); none: same uid, both root, or unknown (core/approval.ts). */
export const SeparationSchema = z.enum(["separated", "none"]);
/** A step as the approver was shown it: approve binds exactly this list (issue 22). */
export const ShownStepSchema = z.object({ transaction_id: z.string().min(1).max(64), preview_hash: z.string().min(1).max(128) }).strict();
/**
 * `show`, `approve`, `reject`: a plan named by its plan_id or by any of its transaction ids (`show` also takes a
 * unique prefix of at least 8 characters of either).
 */
export const TxIdInputSchema = z.object({ transaction_id: z.string().min(1).max(64).describe("A plan_id, or any transaction id of the plan") }).strict();
/**
 * `approve`: `steps` is the list of (transaction_id, preview_hash) the approver was shown, in plan order; the
 * daemon refuses `plan_changed` when the plan's steps or any hash differ. A client showing a human the plan
 * must send it; without it the plan is approved as stored (the daemon's own process and tests).
 */
export const ApproveInputSchema = TxIdInputSchema.extend({ steps: z.array(ShownStepSchema).min(1).max(100).optional() }).strict();
export const ApproveResultSchema = z.object({
  plan_id: z.string(),
  /** Every step the receipt opens, in plan order, with the preview_hash it is bound to. */
  steps: z.array(z.object({ transaction_id: z.string(), preview_hash: z.string() })),
  receipt: z.string(), expires_at: z.string(),
  separation: SeparationSchema,
  separation_facts: z.string(),
  /** How it was approved (core/approval-proof.ts): terminal, same-user (a terminal approval with separation none), passkey, or test (tests only). */
  method: ApprovalMethodSchema,
  /** The audit chain's head just after this approval (seq, hash): a witness for `hostgate audit verify --witness`. */
  checkpoint: CheckpointRefSchema,
});
export type ApproveResult = z.infer<typeof ApproveResultSchema>;
/** `confirm` (admin socket, issue 24): keep a change that reverts unless confirmed. */
export const ConfirmResultSchema = z.object({ transaction_id: z.string(), action_name: z.string(), host: z.string(), state: z.literal("succeeded"), confirmed_at: z.string() });
export type ConfirmResult = z.infer<typeof ConfirmResultSchema>;
export const RejectResultSchema = z.object({ plan_id: z.string(), transaction_ids: z.array(z.string()), state: z.literal("rejected") });
export type RejectResult = z.infer<typeof RejectResultSchema>;
/** What `hostgate pending` lists: plans waiting for a human, newest first, each with its steps in order. */
export const PendingInputSchema = z.object({ limit: z.number().int().min(1).max(1000).optional() }).strict();
export const PendingResultSchema = z.object({
  plans: z.array(z.object({
    plan_id: z.string(),
    /** The highest step risk. */
    risk_level: RiskLevelSchema,
    host: z.string(),
    created_at: z.string(),
    expires_at: z.string(),
    actor: z.string(),
    steps: z.array(z.object({
      transaction_id: z.string(),
      action_name: z.string(),
      host: z.string(),
      risk_level: RiskLevelSchema,
      summary: z.string(),
    })),
    /** Why only a passkey approval in the console can approve it (issue 23), or null: `hostgate approve` will do. */
    passkey_required: z.string().nullable().optional(),
  })),
});
export type PendingResult = z.infer<typeof PendingResultSchema>;

/** `console_link` (admin socket, issue 23): a one-time link to log in to the approval console or to enroll a passkey. */
export const ConsoleLinkInputSchema = z.object({ purpose: z.enum(["login", "enroll"]).default("login").describe("login: a console session; enroll: a passkey enrollment") }).strict();
export const ConsoleLinkResultSchema = z.object({
  url: z.string().describe("http://localhost:PORT/login#SECRET or …/enroll#SECRET: single use"),
  origin: z.string(),
  expires_at: z.string(),
});
export type ConsoleLinkResult = z.infer<typeof ConsoleLinkResultSchema>;

/** An MCP resource as the daemon lists it. */
export const ResourceEntrySchema = z.object({ uri: z.string(), name: z.string(), title: z.string().optional(), mimeType: z.string(), description: z.string().optional() });
export type ResourceEntry = z.infer<typeof ResourceEntrySchema>;
/** An MCP resource template. */
export const ResourceTemplateEntrySchema = z.object({ uriTemplate: z.string(), name: z.string(), title: z.string().optional(), mimeType: z.string(), description: z.string().optional() });
export type ResourceTemplateEntry = z.infer<typeof ResourceTemplateEntrySchema>;
/** One resource's content: `text`, or `blob` (base64) for bytes that are not UTF-8 (a skill's binary file). */
export const ResourceContentsSchema = z.object({ uri: z.string(), mimeType: z.string(), text: z.string().optional(), blob: z.string().optional() })
  .refine((c) => (c.text === undefined) !== (c.blob === undefined), { error: "a resource's content is text or blob, one of the two" });
export type ResourceContents = z.infer<typeof ResourceContentsSchema>;

/** Result of any daemon method: a value or an error the caller can act on. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: ErrorBody };
