/**
 * URL-mode elicitation of the approval console (issue 23): when a `plan` answer carries a console URL and the
 * client declared `elicitation.url`, the front also offers that URL to the user through the client. Only an
 * offer: whatever the client answers (accept, decline, cancel, or an error) is ignored. An elicitation
 * "accept" is never a receipt: the approval happens only in the console page (a passkey assertion checked by
 * the daemon). Nothing waits for it: the plan's result is returned at once. Over stdio only: the stateless
 * Streamable HTTP front gives each POST a fresh server that never saw the client's initialize (no capabilities)
 * and answers in JSON with no stream for a server→client request; there the link is in the plan result.
 */
import type { Server } from "@modelcontextprotocol/server";
import type { ToolResult } from "./tool-spec.ts";

/** The first console URL of a plan answer, or null. */
export function consoleUrlOfPlan(result: ToolResult): string | null {
  if (result.isError) return null;
  const steps = (result.structuredContent as { steps?: { console_url?: unknown }[] } | undefined)?.steps;
  const url = steps?.[0]?.console_url;
  return typeof url === "string" && /^http:\/\/localhost:\d+\//.test(url) ? url : null;
}

/** Whether the connected client declared URL-mode elicitation. */
export function clientTakesUrlElicitation(server: Server): boolean {
  // The initialize-scoped capabilities: URL elicitation exists only on 2025-era connections (see offerConsoleUrl).
  // eslint-disable-next-line @typescript-eslint/no-deprecated
  const caps = server.getClientCapabilities() as { elicitation?: { url?: unknown } } | undefined;
  return caps?.elicitation?.url !== undefined;
}

/**
 * Offers the console URL of `result` through URL-mode elicitation when the client takes it. Fire and forget:
 * returns at once; the client's answer and any error (a modern-era connection has no server→client channel)
 * are dropped.
 */
export function offerConsoleUrl(server: Server, result: ToolResult): void {
  const url = consoleUrlOfPlan(result);
  if (url === null || !clientTakesUrlElicitation(server)) return;
  const planId = (result.structuredContent as { plan_id?: unknown }).plan_id;
  try {
    // The push-style request of 2025-era connections (stdio); a 2026-07-28 request throws, caught below.
    // eslint-disable-next-line @typescript-eslint/no-deprecated
    void server.elicitInput({
      mode: "url",
      elicitationId: globalThis.crypto.randomUUID(),
      url,
      message: `hostgate: plan ${typeof planId === "string" ? planId : ""} waits for a human. Review it and approve or reject it with your passkey in the approval console (this machine only). Accepting this prompt does not approve anything.`,
    }).catch(() => undefined);
  } catch {
    // No server→client channel on this connection: the URL is in the plan result anyway.
  }
}
