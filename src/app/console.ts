/**
 * The approval console's use cases (issue 23): one-time links for the admin socket (`hostgate console`,
 * `hostgate console enroll`), each transaction's console URL for plan results, and the notice of a new plan.
 */
import { actorOf, type Caller } from "../core/caller.ts";
import { HostgateError } from "../core/errors.ts";
import type { ConsoleLinkPurpose } from "../ports/approval-console.ts";
import type { PlanNotice } from "../ports/plan-notifier.ts";
import { audit } from "./audit-log.ts";
import type { DaemonDeps } from "./deps.ts";

/**
 * A one-time link (admin socket only): `login` opens a console session, `enroll` enrolls a passkey. Starts the
 * console when it is not running. The link remembers `caller` (its kernel uid): the session or enrollment it
 * opens acts as them. A `console.link` audit entry (purpose, expiry; actor: `caller`; never the link's secret) is
 * durable before the link is handed out (fail closed). Errors: `unavailable` when this daemon has no console (or
 * its port is taken).
 */
export async function consoleLink(deps: DaemonDeps, purpose: ConsoleLinkPurpose, caller: Caller): Promise<{ url: string; origin: string; expires_at: string }> {
  if (!deps.console) throw new HostgateError("unavailable", "This daemon has no approval console.", { hint: "Approve in a terminal with `hostgate approve <plan_id>`." });
  let link;
  try {
    link = await deps.console.link(purpose, caller);
  } catch (err) {
    throw new HostgateError("unavailable", `The approval console could not start: ${(err as Error).message}`, { hint: "Set console.port to a free port in the config and restart the daemon." });
  }
  const expires = new Date(link.expires_at).toISOString();
  await audit(deps.audit(), "console.link", actorOf(caller), { purpose, expires_at: expires, message: `${purpose === "login" ? "console login" : "passkey enrollment"} link minted on the admin socket` }, true);
  return { url: link.url, origin: deps.console.origin() ?? new URL(link.url).origin, expires_at: expires };
}

/** The console page of one transaction (`<origin>/plans/<transaction_id>`), or null when the console is not running. */
export function consoleUrlOf(deps: DaemonDeps, transactionId: string): string | null {
  const origin = deps.console?.origin() ?? null;
  return origin === null ? null : `${origin}/plans/${encodeURIComponent(transactionId)}`;
}

/**
 * Tells the configured notifier that a plan waits (fire and forget: never awaited, never throws, never delays
 * the plan). The notice names the plan, its host, highest risk, the steps' summaries and the first step's
 * console URL; never a receipt, a preview body or a parameter.
 */
export function notifyPlanned(deps: DaemonDeps, notice: PlanNotice): void {
  if (!deps.notifier) return;
  void deps.notifier.planCreated(notice).catch(() => undefined);
}
