/**
 * Tells someone that a plan waits for approval (issue 23): config `console.notify.webhook_url`, implemented by
 * adapters/webhook-notifier.ts. The message never carries a secret or the preview body.
 */

/** What one notification says. `console_url` is null when the console is not running. */
export interface PlanNotice {
  plan_id: string;
  host: string;
  risk: string;
  summary: string;
  console_url: string | null;
}

/** A notifier: `planCreated` must never throw and never delay the plan (the caller does not await it). */
export interface PlanNotifier {
  planCreated(notice: PlanNotice): Promise<void>;
}
