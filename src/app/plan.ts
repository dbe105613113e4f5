import { changeContext, revertApplies, toolNameOf, type Action, type Preview } from "../core/catalogue/action.ts";
import { assertSupported, needsRoot } from "../core/catalogue/needs.ts";
import { findAction } from "../core/catalogue/index.ts";
import { HostgateError, describeIssues } from "../core/errors.ts";
import { findControlCharacter } from "../core/limits.ts";
import { planIntent } from "../core/planner/rules.ts";
import { passkeyRequirement } from "../core/approval-proof.ts";
import { OWN_SOCKET_APPROVER, approveCommandText, type Approver } from "../core/approver.ts";
import { agentPreview } from "../core/transaction/agent-preview.ts";
import { previewHashInput } from "../core/transaction/preview-hash.ts";
import { DEFAULT_CONFIRM_WINDOW_S, PLAN_TTL_MS, type Transaction } from "../core/transaction/transaction.ts";
import type { PlanInput, PlanResult } from "../ipc/protocol.ts";
import { consoleUrlOf, notifyPlanned } from "./console.ts";
import { highestRisk } from "../core/risk-level.ts";
import type { JsonValue } from "../core/audit/canonical.ts";
import { audit } from "./audit-log.ts";
import type { DaemonDeps } from "./deps.ts";
import { actorOf, roleAtLeast, type Caller, type Role } from "../core/caller.ts";
import { LOCAL_HOST } from "../core/host-id.ts";
import { readGate } from "./query-hosts.ts";
import { actionExposure, assertActionsOffered, DEFAULT_EXPOSURE } from "./exposure.ts";
import type { HostEntry } from "./hosts.ts";

/** The preview of a read-only step: nothing changes; the step is the query itself. */
function readOnlyPreview(action: Action, params: Record<string, unknown>): Preview {
  return { summary: `${action.name}: read-only query, nothing on the host changes`, text: `${action.name} ${JSON.stringify(params)}` };
}

/**
 * Refuses a plan whose changes need root on a remote host where the login cannot get it without a prompt
 * (issue 20, corpus S016), before any preview and so before anyone could approve what would only fail at
 * execute: HostgateError `sudo_password_required` (sudo -n would ask for a password) or `privilege_unavailable`
 * (a non-root login without `become: sudo`, no sudo, requiretty), with the adapter's hint (a NOPASSWD rule or a
 * root login). One round trip per plan at most: the host's context keeps the answer (HostConnection.privilege).
 * `local` (no connection) and steps that do not need root (RunCommand) are not checked.
 */
async function checkPrivilege(deps: DaemonDeps, host: HostEntry, requested: readonly { action: string }[]): Promise<void> {
  const connection = host.ctx.connection;
  if (!connection) return;
  const rooted = requested.map((s) => findAction(s.action, host.ctx.family, deps.catalogue)).filter((a): a is Action => a !== undefined && needsRoot(a)).map((a) => a.name);
  if (rooted.length === 0) return;
  const c = await connection.privilege();
  if (c.ok) return;
  const what = [...new Set(rooted)].join(", ");
  throw new HostgateError(c.code, `${c.message.replace(/; nothing ran\.$/, ".")} Nothing was planned: ${what} on ${host.id} would need root there and fail at execute, so there is nothing a human could approve.`, {
    hint: c.hint,
    details: { host: host.id, login: c.login, actions: [...new Set(rooted)] },
  });
}

/**
 * Whether a step's preview says its change is already in place: the catalogue's convention is a summary containing
 * "nothing to do" (core/catalogue/actions/planned-change.ts and every issue-24 action; test/integration/plan-nothing-to-do.test.ts).
 */
export function isNothingToDo(preview: Preview): boolean {
  return /\bnothing to do\b/i.test(preview.summary);
}

/**
 * A step of a plan of several failed its checks or preview: the error names the step (1-based `step` and its action,
 * also in `details`). Every step is previewed against the host as it is NOW, before anything runs, so a step that
 * relies on an earlier step's change (AddAuthorizedKey for the user a CreateUser step creates) fails here; the hint
 * says to plan it after the earlier steps execute. Decided against previewing later steps against the earlier
 * steps' intended state: the preview is what the human approves and its hash binds the host state execute re-checks
 * under the lock, so a preview of a state that does not exist yet would show the approver something nobody checked,
 * and every action would need a second, simulated model of its effect.
 */
function stepError(err: HostgateError, index: number, requested: readonly { action: string }[], deps: DaemonDeps, host: HostEntry): HostgateError {
  const action = requested[index]!.action;
  const earlier = requested.slice(0, index).map((s, i) => ({ n: i + 1, a: findAction(s.action, host.ctx.family, deps.catalogue) })).filter((x) => x.a?.access === "mutating");
  const depends = earlier.length === 0 ? "" : `Steps are previewed against the host as it is now, before any step runs: if step ${index + 1} depends on ${earlier.map((x) => `step ${x.n} (${x.a!.name})`).join(", ")}, plan ${earlier.length === 1 ? "that step" : "those steps"} alone, execute, then plan step ${index + 1}. `;
  return new HostgateError(err.code, `Step ${index + 1} (${action}): ${err.message}`, {
    hint: `${depends}${err.hint ?? ""}`.trim() || `Fix step ${index + 1} (${action}) and plan again.`,
    details: { ...(err.details ?? {}), step: index + 1, action },
    cause: err,
  });
}

/** Length of a transaction's preview salt in random bytes (core/transaction/preview-hash.ts). */
const PREVIEW_SALT_BYTES = 32;

/**
 * Validates one step against the catalogue and computes its preview and preview_hash. `salt`: the
 * transaction's preview salt (execute passes the stored one); undefined draws a new one (plan).
 */
export async function prepareStep(deps: DaemonDeps, actionName: string, rawParams: unknown, hostId: string = LOCAL_HOST, role: Role = "operator", salt?: string | null): Promise<{ action: Action; params: Record<string, unknown>; preview: Preview; preview_hash: string; preview_salt: string | null }> {
  const host = await deps.hosts.resolve(hostId);
  const action = findAction(actionName, host.ctx.family, deps.catalogue);
  if (!action) {
    throw new HostgateError("unknown_action", `No action named ${actionName} on this ${host.ctx.family}-family host.`, {
      hint: `Use one of: ${deps.catalogue.map((a) => a.name).join(", ")}.`,
    });
  }
  assertSupported(action, host.ctx, host.id);
  if (!roleAtLeast(role, action.min_role)) throw new HostgateError("insufficient_role", `${actionName} needs the ${action.min_role} role; this caller is ${role}.`);
  const control = findControlCharacter(rawParams ?? {}, "params");
  if (control) throw new HostgateError("invalid_params", `${control} contains a control character (NUL, ESC or another C0 byte).`, { hint: "Remove control characters; only tab, newline and carriage return are allowed in text." });
  const parsed = action.params.safeParse(rawParams ?? {});
  if (!parsed.success) {
    throw new HostgateError("invalid_params", `Invalid params for ${actionName}: ${describeIssues(parsed.error, "params")}.`);
  }
  const params = parsed.data as Record<string, unknown>;
  const preview = action.access === "mutating" ? withConfirmWindow(await action.preview(params, changeContext(host.ctx)), action, params, deps.confirm_window_s ?? DEFAULT_CONFIRM_WINDOW_S) : readOnlyPreview(action, params);
  const previewSalt = salt === undefined ? deps.crypto.randomBase64Url(PREVIEW_SALT_BYTES) : salt;
  return { action, params, preview, preview_hash: deps.crypto.sha256Hex(previewHashInput(action.name, host.id, params, preview, previewSalt)), preview_salt: previewSalt };
}

/**
 * A step that reverts unless confirmed (issue 24): its preview carries the confirm window and says, for the
 * approver and the model alike, what happens without a confirm. Any other step's preview is returned as is.
 */
export function withConfirmWindow(preview: Preview, action: Action, params: Record<string, unknown>, windowS: number): Preview {
  if (!revertApplies(action, params)) return preview;
  const note = `AUTO-REVERT: after applying, the daemon restores the prior state in ${windowS} s unless \`hostgate confirm <transaction_id>\` (admin socket) confirms the change first.`;
  return {
    ...preview,
    text: `${preview.text.replace(/\n*$/, "")}\n\n${note}\n`,
    ...(preview.agent ? { agent: { ...preview.agent, text: `${preview.agent.text.replace(/\n*$/, "")}\n\n${note}\n` } } : {}),
    confirm: { window_s: windowS },
  };
}

/**
 * Where the human approves a plan, for its `next` text (issue 23): `passkey` is why the plan needs a passkey
 * approval (core/approval-proof.ts passkeyRequirement) or null; `console` is null when this daemon has no
 * approval console, else its URL of the plan's first step, or null as `url` when the console is not running
 * (then the text says how to start it: `hostgate console`).
 */
export interface ApprovalRoute {
  passkey: string | null;
  console: { url: string | null } | null;
  /** Who approves in a terminal and how (core/approver.ts); absent: plain `hostgate approve`. */
  approver?: Approver | undefined;
}

/** The `next` text of a plan: what the model must do now (one approval of the whole plan, issue 22; where, issue 23). */
export function planNext(planId: string, stepCount: number, route: ApprovalRoute = { passkey: null, console: null }): string {
  const all = stepCount === 1 ? "the step" : `all ${stepCount} steps`;
  const then = "only then call execute with the steps in order and that receipt (on each step, or once as the top-level approval_receipt). A chat reply such as \"yes\" is not a receipt.";
  const url = route.console?.url ?? null;
  const open = url === null
    ? "the human runs `hostgate console`, which starts the console and prints a one-time login link, and opens the plan there"
    : `the human runs \`hostgate console\` for a one-time login link, then opens ${url} (tell them this link)`;
  if (route.passkey !== null) {
    return `Show these steps and their risk to the user and STOP. This plan needs a passkey approval (${route.passkey}): approve in the console — ${open}, and approves it there with an enrolled passkey (one approval covers ${all}); the page shows one receipt for this plan (\`hostgate approve\` cannot approve it). ${then[0]!.toUpperCase()}${then.slice(1)}`;
  }
  const terminal = `Show these steps and their risk to the user and STOP. Ask the user to run ${approveCommandText(route.approver ?? OWN_SOCKET_APPROVER, planId)} in a terminal: it shows the steps, asks them to confirm, and prints one receipt for this plan (one approval covers ${all}); ${then}`;
  return route.console === null ? terminal : `${terminal} The human may instead approve in the approval console: ${open}.`;
}

/**
 * `plan`: turns an intent (deterministic rules, or the configured LLM, whose proposals are validated like any
 * explicit step) or explicit steps into one plan (a new UUID `plan_id`) of transactions, one per step in order
 * (plan_seq from 1), each with its own preview and preview_hash. One `hostgate approve <plan_id>` approves them all.
 * Only mutating steps become transactions: read-only ones are listed in `read_only` (their tools answer them
 * without approval), and a plan of read-only steps alone is refused (`no_plan`, details.read_only). Nothing runs. Every transaction is recorded in the audit chain before the plan is returned.
 * On a remote host the caller needs the policy's `read` permit for it (`refused` otherwise, before any dial),
 * unless `opts.judged` (exec_on_host asking for approval of a command its gate already judged there).
 * `opts.join`: add the steps to plan `id` after its step `after` instead of a new plan (exec_on_host's fan-out:
 * one plan over several hosts, planned host by host; only the daemon's own code passes it).
 */
export async function plan(deps: DaemonDeps, input: PlanInput, caller: Caller, opts: { judged?: boolean; join?: { id: string; after: number } } = {}): Promise<PlanResult> {
  const actor = actorOf(caller);
  // A remote host: the caller's read permit for it first (the previews read its state), before anything dials.
  // `judged`: exec_on_host's approval path, whose policy gate already judged this caller's command on this host.
  const hostId = input.host ?? LOCAL_HOST;
  const host = await deps.hosts.resolve(hostId, undefined, opts.judged === true ? undefined : readGate(deps, "plan", hostId, caller));
  let planner: PlanResult["planner"] = "explicit";
  let requested: { action: string; params: Record<string, unknown> }[];
  if (input.intent !== undefined) {
    if (deps.llm) {
      planner = "llm";
      // The model proposes among the actions this daemon offers (a hidden toolset's changes are not there).
      const exposure = deps.exposure ?? DEFAULT_EXPOSURE;
      requested = await deps.llm.propose(input.intent, deps.catalogue.filter((a) => actionExposure({ action: a.name, access: a.access, toolsets: a.toolsets }, exposure).offered));
    } else {
      planner = "deterministic";
      requested = planIntent(input.intent).filter((s) => findAction(s.action, host.ctx.family, deps.catalogue));
    }
    if (requested.length === 0) {
      throw new HostgateError("no_plan", `No catalogue action matches the intent ${JSON.stringify(input.intent)}.`, {
        hint: `Call plan with explicit steps: {"steps":[{"action":"RestartService","params":{"unit":"nginx.service"}}]}. Actions: ${deps.catalogue.map((a) => a.name).join(", ")}.`,
      });
    }
  } else {
    requested = input.steps ?? [];
  }
  // tools.groups.X: false hides a toolset's changes too (issue 24). exec_on_host's approval path (`judged`, `join`)
  // plans RunCommand behind its own gate (exec.enabled), so it is not judged again here.
  if (opts.judged !== true && opts.join === undefined) await assertActionsOffered(deps, requested, caller);
  await checkPrivilege(deps, host, requested);
  const all = [];
  for (const [i, step] of requested.entries()) {
    try {
      all.push(await prepareStep(deps, step.action, step.params, host.id, caller.role));
    } catch (err) {
      throw requested.length > 1 && err instanceof HostgateError ? stepError(err, i, requested, deps, host) : err;
    }
  }
  // Only changes need a plan and a human: a read-only step would cost an approval for a query the model can
  // run itself. A plan of reads alone is refused, pointing to the tools; reads beside changes are listed, not planned.
  const prepared = all.filter((p) => p.action.access === "mutating");
  // Each read is shown with the arguments as asked (defaults left to the tool).
  const reads = all.flatMap((p, i) => (p.action.access === "mutating" ? [] : [{ action_name: p.action.name, tool: toolNameOf(p.action.name), params: requested[i]!.params }]));
  const calls = reads.map((r) => `${r.tool} ${JSON.stringify(r.params)}`).join(", ");
  if (prepared.length === 0) {
    const what = input.intent !== undefined ? `The intent ${JSON.stringify(input.intent)} matches only` : "These steps are only";
    const changes = deps.catalogue.filter((a) => a.access === "mutating").map((a) => a.name);
    throw new HostgateError("no_plan", `${what} read-only ${reads.length === 1 ? "action" : "actions"} (${reads.map((r) => r.action_name).join(", ")}): nothing would change, so there is nothing to approve.`, {
      hint: `Call the read-only ${reads.length === 1 ? "tool" : "tools"} directly, no approval needed: ${calls}. To change the host, plan steps of the actions that do (${changes.join(", ")}), e.g. {"steps":[{"action":"RestartService","params":{"unit":"nginx.service"}}]}.`,
      details: { read_only: reads },
    });
  }
  if (opts.join === undefined && prepared.every((p) => isNothingToDo(p.preview))) {
    const left = reads.length === 0 ? "" : ` The read-only steps need no plan: call ${calls} directly.`;
    throw new HostgateError("nothing_to_do", `Every change is already in place (${prepared.map((p) => p.preview.summary).join("; ")}): no plan was made and there is nothing to approve.`, {
      hint: `Tell the user the host is already in the asked state; do not ask for an approval.${left}`,
      details: { steps: prepared.map((p, i) => ({ step: i + 1, action_name: p.action.name, summary: p.preview.summary })) },
    });
  }
  const now = deps.clock.now();
  const planId = opts.join?.id ?? deps.crypto.uuid();
  let seq = opts.join?.after ?? 0;
  const steps: PlanResult["steps"] = [];
  const planned: { id: string; risk_level: Transaction["risk_level"]; intended?: unknown }[] = [];
  for (const p of prepared) {
    seq++;
    const tx: Transaction = {
      id: deps.crypto.uuid(), plan_id: planId, plan_seq: seq, action_name: p.action.name, host: host.id, params: p.params, risk_level: highestRisk([p.action.risk_level, ...(p.preview.risk_level ? [p.preview.risk_level] : [])]), preview: p.preview, preview_hash: p.preview_hash, preview_salt: p.preview_salt,
      state: "planned", actor, created_at: now, updated_at: now, plan_expires_at: now + PLAN_TTL_MS,
      approved_at: null, approved_by: null, receipt_expires_at: null, result: null, error: null,
      // Shown to the approver: how the step came to be, and from what words (issue 12).
      planner, intent: input.intent ?? null, separation: null, confirm_deadline: null, confirmed_at: null, confirmed_by: null,
    };
    await audit(deps.audit(), "plan.created", actor, { transaction_id: tx.id, plan_id: planId, plan_seq: seq, action: tx.action_name, host: tx.host, params: tx.params as JsonValue, risk_level: tx.risk_level, preview_hash: tx.preview_hash, planner, intent: tx.intent ?? undefined });
    deps.transactions().insert(tx);
    planned.push({ id: tx.id, risk_level: tx.risk_level, intended: tx.preview.intended });
    const url = consoleUrlOf(deps, tx.id);
    steps.push({ transaction_id: tx.id, action_name: tx.action_name, host: tx.host, params: tx.params, access: p.action.access, risk_level: tx.risk_level, preview: agentPreview(tx.preview), preview_hash: tx.preview_hash, expires_at: new Date(tx.plan_expires_at).toISOString(), ...(url === null ? {} : { console_url: url }) });
  }
  // Issue 23: someone is told (config console.notify), without waiting for them and without the preview body.
  if (opts.join === undefined && steps.length > 0) {
    notifyPlanned(deps, { plan_id: planId, host: host.id, risk: highestRisk(steps.map((st) => st.risk_level)), summary: prepared.map((p) => p.preview.summary).join("; ").slice(0, 500), console_url: steps[0]!.console_url ?? null });
  }
  const left = reads.length === 0 ? "" : ` Read-only steps were not planned (they need no approval): call ${calls} directly.`;
  return {
    plan_id: planId,
    planner,
    steps,
    ...(reads.length === 0 ? {} : { read_only: reads }),
    next: `${planNext(planId, seq, { passkey: passkeyRequirement(planned, deps.approval.passkey_required_from), console: deps.console ? { url: steps[0]?.console_url ?? null } : null, approver: deps.approver })}${left}`,
  };
}
