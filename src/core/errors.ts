import { redactDeep } from "./redact.ts";

/**
 * Errors a caller (the model, the CLI, a test) can act on. Every one carries a stable snake_case `code`
 * (DESIGN.md, Words: "Errors the model can act on are tool results with `isError: true` and a stable
 * snake_case `code`") and a message that says what to do next.
 */
export type ErrorCode =
  | "invalid_params"
  | "unknown_action"
  | "not_read_only"
  | "not_found"
  | "permission_denied"
  | "forbidden_path"
  | "unavailable"
  | "answer_too_large"
  | "arguments_too_large"
  | "timeout"
  | "backend_error"
  | "audit_unavailable"
  | "no_such_unit"
  | "invalid_unit_name"
  | "invalid_uri"
  | "user_manager_unavailable"
  | "unknown_transaction"
  /** A shortened transaction id that starts several ids; details.matches lists them (app/approve.ts). */
  | "ambiguous_transaction"
  | "params_changed"
  | "invalid_receipt"
  | "receipt_mismatch"
  | "receipt_for_other_transaction"
  | "receipt_used"
  | "receipt_expired"
  | "plan_changed"
  /** A plan's step sent before an earlier step of its plan ran (app/execute.ts; run the steps in plan order). */
  | "out_of_order"
  /** An earlier step of the plan failed or ended otherwise: no later step runs with this plan's receipt (app/execute.ts). */
  | "plan_halted"
  | "not_approved"
  /** Restoring a step's prior state failed (confirm-or-auto-revert, app/revert.ts): the host's state is unknown. */
  | "revert_failed"
  /** `hostgate confirm` of a step that is not waiting for its confirm (never had a window, confirmed, reverting or reverted). */
  | "not_awaiting_confirm"
  /** `hostgate confirm` after the step's confirm window ended: the daemon restores (or restored) the prior state. */
  | "confirm_too_late"
  | "transaction_closed"
  | "no_plan"
  /** plan: every change asked for is already in place (each step's preview says "nothing to do"); no transaction was made. */
  | "nothing_to_do"
  | "planner_error"
  | "forbidden_method"
  /** The tool behind a method is turned off in the daemon's configuration (core/toolsets.ts `exposureOf`); the hint says what to write. */
  | "tool_disabled"
  /** An approval the daemon does not accept: no controlling terminal, or a same-user approval under `deny` (core/approval.ts). */
  | "approval_refused"
  /** The plan needs a passkey approval (Cedar require_biometric or approval.passkey_required_from); approve it in the console (core/approval-proof.ts). */
  | "passkey_required"
  /** A passkey ceremony the daemon does not accept: unknown or revoked credential, replayed or foreign challenge, no user verification (app/passkeys.ts). */
  | "passkey_refused"
  /** The caller's role is below the method's or action's min_role. */
  | "insufficient_role"
  /** No host with that id is registered in the daemon (app/hosts.ts). */
  | "unknown_host"
  /** A host id registered twice. */
  | "host_exists"
  /** An execute step names another host than its transaction. */
  | "host_mismatch"
  | "unauthorized"
  | "protocol_error"
  /** The host changed since the preview (e.g. a file's content hash); re-plan. */
  | "precondition_failed"
  /** A mutating action ran and failed (e.g. a package tool exited non-zero); details carry the exit. */
  | "action_failed"
  /** An SSH target (host, user, port) that is not a plain host name / IP literal / user name: refused before dialing. */
  | "invalid_target"
  /** The host's key is not in known_hosts (and trust-on-first-use is off): the fingerprint says what to add. */
  | "host_key_unknown"
  /** The host's key differs from known_hosts, or is marked @revoked: possible interception; nothing was sent. */
  | "host_key_mismatch"
  /** The ssh client config says to reach this host in a way hostgate does not (ProxyCommand), or cannot be read for it. */
  | "ssh_config_error"
  /** An exec target is the same machine as inventory hosts whose tags disagree (core/inventory/identity.ts). */
  | "host_collision"
  /** The risk engine or the policy refused a command before any connection; details carry the reasons. */
  | "refused"
  /** The host could not be reached (DNS, TCP, SSH handshake or authentication); nothing ran. */
  | "unreachable"
  /** The request was cancelled by the client; a started remote command was signalled. */
  | "cancelled"
  /** A remote host's `sudo -n` would ask for a password (become: sudo); hostgate never gives one (core/inventory/become.ts). */
  | "sudo_password_required"
  /** A change on a remote host needs root and the login cannot get it: not root and no `become: sudo`, sudo refused or absent. */
  | "privilege_unavailable"
  | "internal_error"
  // Skills (issue 11). Confirm-token codes keep the dotted form the skills reference names.
  | "confirm.missing"
  | "confirm.invalid"
  | "confirm.used"
  | "confirm.expired"
  | "confirm.other_session"
  | "confirm.arguments_changed"
  | "confirm.plan_changed"
  /** No registry is configured, so registry references cannot be resolved. */
  | "source_disabled"
  /** The registry did not answer in time, or refused the connection. */
  | "registry_unreachable"
  /** The registry answered something unusable (bad index/record, HTTP error). */
  | "registry_error"
  /** A downloaded tree does not hash to the digest its release record pins. */
  | "digest_mismatch"
  /** An archive holds something a skill may not (symlink, device, traversal, too large). */
  | "archive_refused"
  /** The skill exists but fails validation; details list the problems. */
  | "invalid_skill"
  /** skills_execute: another run is in progress. */
  | "exec_busy"
  /** skills_execute: the entrypoint does not opt in, is not granted, or declares secrets. */
  | "exec_refused";

/** An error with a stable code. `hint` tells the caller how to recover; `details` is structured context. */
export class HostgateError extends Error {
  readonly code: ErrorCode;
  readonly hint: string | undefined;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, opts: { hint?: string; details?: Record<string, unknown>; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = "HostgateError";
    this.code = code;
    this.hint = opts.hint;
    this.details = opts.details;
  }
}

/** Narrows an unknown thrown value to a HostgateError, wrapping anything else as `internal_error`. */
export function toHostgateError(err: unknown): HostgateError {
  if (err instanceof HostgateError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new HostgateError("internal_error", message, { cause: err });
}

/** Largest `details` an error body carries, in bytes of JSON (larger details are dropped, the message stays). */
export const ERROR_DETAILS_MAX_BYTES = 16 * 1024;

/** An error as it crosses the daemon protocol and reaches a tool result (ipc/protocol.ts ErrorBodySchema). */
export interface ErrorBodyShape {
  code: string;
  message: string;
  hint?: string;
  /** Structured context (a refusal's decision and reasons, the ids an ambiguous prefix matched…): a JSON object, secrets redacted. */
  details?: Record<string, unknown>;
}

/**
 * The wire body of any thrown value: code, message, hint and `details`. Details go through the answer redactor
 * (they may quote host output, e.g. a failed command's stderr) and must be a JSON object of at most
 * {@link ERROR_DETAILS_MAX_BYTES}; anything else (not serialisable, too large) is left out rather than cut.
 */
export function errorBody(err: unknown): ErrorBodyShape {
  const e = toHostgateError(err);
  const body: ErrorBodyShape = { code: e.code, message: e.message, ...(e.hint ? { hint: e.hint } : {}) };
  if (e.details === undefined) return body;
  let json: string;
  try {
    json = JSON.stringify(redactDeep(e.details).value) ?? "";
  } catch {
    return body; // a cycle or a bigint: not JSON
  }
  if (json.length > ERROR_DETAILS_MAX_BYTES || !json.startsWith("{")) return body;
  return { ...body, details: JSON.parse(json) as Record<string, unknown> };
}


/**
 * Validation issues (zod's `error.issues`, or any list of `{ path, message }`) as one line for an error
 * message: `path.to.field: message; other: message`, an issue at the top named `root` ("arguments", "params"…).
 */
export function describeIssues(error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] }, root: string): string {
  return error.issues.map((i) => `${i.path.map(String).join(".") || root}: ${i.message}`).join("; ");
}
