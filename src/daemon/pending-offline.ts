import { existsSync } from "node:fs";
import { join } from "node:path";
import { SqliteTransactionStore } from "../adapters/transaction-sqlite.ts";
import { pendingIn } from "../app/approve.ts";
import type { RiskLevel } from "../core/catalogue/action.ts";
import type { PendingResult } from "../ipc/protocol.ts";
import { stateDir } from "./paths.ts";

/**
 * The plans waiting for approval read straight from this user's embedded state directory (`<state>/state.db`,
 * opened read-only: nothing is written, no daemon is started), for `hostgate pending` when no daemon runs (issue
 * 22): a front that planned and exited leaves its plans there, and the next front's daemon serves them. `from`
 * names the file read; `passkeyFrom` is config `approval.passkey_required_from` (each plan's `passkey_required`); a missing file is an empty list. Throws HostgateError `unavailable` when the file cannot be
 * read or has another schema version.
 */
export function pendingFromStateDir(configuredState: string | undefined, now: number, limit?: number, env: NodeJS.ProcessEnv = process.env, passkeyFrom: RiskLevel | null = null): PendingResult & { from: string } {
  const from = join(stateDir("embedded", configuredState, env), "state.db");
  if (!existsSync(from)) return { plans: [], from };
  const store = new SqliteTransactionStore(from, { readOnly: true });
  try {
    return { ...pendingIn(store, now, limit, passkeyFrom), from };
  } finally {
    store.close();
  }
}
