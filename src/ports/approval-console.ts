/**
 * The approval console as the use cases see it (issue 23): the daemon's loopback web page for the human who
 * approves. Implemented by daemon/console/feature.ts (node:http); the use cases only ask where it is and for
 * one-time links.
 */
import type { Caller } from "../core/caller.ts";

/** What a one-time link opens: a login session, or the enrollment of a passkey. */
export type ConsoleLinkPurpose = "login" | "enroll";

/** The console of this daemon. */
export interface ApprovalConsole {
  /** `http://localhost:<port>` while the console runs, else null. */
  origin(): string | null;
  /** Starts the console if it is not running (idempotent); resolves with its origin. Throws when the port is taken. */
  start(): Promise<string>;
  /**
   * A one-time link for `purpose` (valid 5 minutes, single use) minted by `by` (the admin-socket caller: the session
   * or enrollment it opens acts as them), starting the console first if needed.
   */
  link(purpose: ConsoleLinkPurpose, by: Caller): Promise<{ url: string; expires_at: number }>;
}
