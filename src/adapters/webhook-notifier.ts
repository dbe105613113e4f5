/**
 * PlanNotifier over a webhook (issue 23, config `console.notify`): one JSON POST per new plan,
 * `{plan_id, host, risk, summary, console_url}` and nothing else (never a receipt, a token or the preview
 * body), with a deadline and no retries. Failures go to stderr; the plan never waits for this.
 */
import type { PlanNotice, PlanNotifier } from "../ports/plan-notifier.ts";

/** Settings: the URL (http or https) and the deadline of one POST, milliseconds. */
export interface WebhookSettings {
  webhook_url: string;
  timeout_ms: number;
}

/** A notifier that POSTs each notice to `settings.webhook_url`; `log` receives one line per failure. */
export function webhookNotifier(settings: WebhookSettings, log: (line: string) => void = (l) => { process.stderr.write(`hostgate: ${l}\n`); }): PlanNotifier {
  return {
    planCreated: async (n: PlanNotice) => {
      const body = JSON.stringify({ plan_id: n.plan_id, host: n.host, risk: n.risk, summary: n.summary, console_url: n.console_url });
      try {
        const r = await fetch(settings.webhook_url, {
          method: "POST",
          headers: { "content-type": "application/json", "user-agent": "hostgate" },
          body,
          redirect: "manual",
          signal: AbortSignal.timeout(settings.timeout_ms),
        });
        await r.body?.cancel().catch(() => undefined);
        if (r.status < 200 || r.status >= 300) log(`webhook ${new URL(settings.webhook_url).origin} answered HTTP ${r.status} for plan ${n.plan_id} (not retried)`);
      } catch (err) {
        const e = err as Error;
        const why = e.name === "TimeoutError" ? `no answer within ${settings.timeout_ms} ms` : e.message;
        log(`webhook ${new URL(settings.webhook_url).origin} failed for plan ${n.plan_id}: ${why} (not retried)`);
      }
    },
  };
}
