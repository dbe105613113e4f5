import { z } from "zod";
import type { Action } from "../core/catalogue/action.ts";
import { roleAtLeast, type Role } from "../core/caller.ts";
import type { HostEntry } from "./hosts.ts";
import { findAction } from "../core/catalogue/index.ts";
import { assertSupported } from "../core/catalogue/needs.ts";
import { describeIssues, errorBody, HostgateError } from "../core/errors.ts";
import { findControlCharacter, LIMITS, utf8Length } from "../core/limits.ts";
import { redactDeep } from "../core/redact.ts";
import type { QueryResult } from "../ipc/protocol.ts";

/** Wall-time budget for one read-only action, in milliseconds. */
export const QUERY_TIMEOUT_MS = 20_000;

function issuesText(error: z.ZodError): string {
  return describeIssues(error, "arguments");
}

/**
 * The daemon's query_action path: runs one read-only catalogue action. The daemon decides here, whatever
 * the MCP front asked: unknown or mutating actions are refused (`unknown_action`, `not_read_only`),
 * arguments are checked against the caps and the action's params schema, the output is redacted for
 * secrets and capped at 1 MiB (`answer_too_large`); the caller's role must reach the action's `min_role`
 * (`insufficient_role`). Provenance names the host id and its hostname. Never throws: errors come back as `{ ok: false }`.
 */
export async function queryAction(actionName: string, args: unknown, host: HostEntry, catalogue?: readonly Action[], role: Role = "observer"): Promise<QueryResult> {
  const ctx = host.ctx;
  try {
    const action = findAction(actionName, ctx.family, catalogue);
    if (!action) {
      throw new HostgateError("unknown_action", `No action named ${actionName} is offered on this ${ctx.family}-family host.`, {
        hint: "List the tools again; package tools exist only for the detected distro family.",
      });
    }
    if (action.access !== "read_only") {
      throw new HostgateError("not_read_only", `${actionName} changes the host and cannot run as a query.`, {
        hint: "Propose it with plan; a human approves it with `hostgate approve <plan_id>` before execute.",
      });
    }
    assertSupported(action, ctx, host.id);
    if (!roleAtLeast(role, action.min_role)) {
      throw new HostgateError("insufficient_role", `${actionName} needs the ${action.min_role} role; this caller is ${role}.`);
    }
    const size = utf8Length(JSON.stringify(args ?? {}));
    if (size > LIMITS.argumentBytes) {
      throw new HostgateError("arguments_too_large", `Arguments are ${size} bytes; the limit is ${LIMITS.argumentBytes} bytes (64 KiB).`, { hint: "Send a smaller request." });
    }
    const control = findControlCharacter(args);
    if (control) {
      throw new HostgateError("invalid_params", `${control} contains a control character (NUL or another C0 byte).`, { hint: "Remove control characters; only tab and newline are allowed in text." });
    }
    const parsed = action.params.safeParse(args ?? {});
    if (!parsed.success) {
      throw new HostgateError("invalid_params", `Invalid arguments for ${actionName}: ${issuesText(parsed.error)}.`, { hint: "Fix the named arguments; the tool's inputSchema lists the accepted values." });
    }
    const started = Date.now();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => { reject(new HostgateError("timeout", `${actionName} did not finish within ${QUERY_TIMEOUT_MS / 1000} s.`, { hint: "Narrow the request (filters, limit) and try again." })); }, QUERY_TIMEOUT_MS);
    });
    // An action that redacts on its own reports its count through this call's context; the generic pass below
    // then sees markers only, so provenance's `redactions` is the sum of both.
    let ownRedactions = 0;
    const callCtx = { ...ctx, redacted: (n: number) => { ownRedactions += n; } };
    const raw: unknown = await Promise.race([action.run(parsed.data, callCtx), timeout]).finally(() => { clearTimeout(timer); });
    const { value: data, redactions: generic } = redactDeep(raw);
    const redactions = ownRedactions + generic;
    const bytes = utf8Length(JSON.stringify(data));
    if (bytes > LIMITS.answerBytes) {
      throw new HostgateError("answer_too_large", `The answer is ${bytes} bytes; the limit is ${LIMITS.answerBytes} bytes (1 MiB).`, {
        hint: "Narrow the request: lower limit, add a filter (name, user, unit, since, grep) or page with cursor.",
      });
    }
    return {
      ok: true,
      value: {
        data: data as Record<string, unknown>,
        meta: { host: host.id, hostname: host.hostname, action: actionName, at: new Date(started).toISOString(), duration_ms: Date.now() - started, untrusted: action.host_derived, redactions },
      },
    };
  } catch (err) {
    return { ok: false, error: errorBody(err) };
  }
}
