import { existsSync } from "node:fs";
import { join } from "node:path";
import { ensureAppendOnly } from "../adapters/append-only.ts";
import { checkpointCopyPath, type CheckpointCopyTarget } from "../adapters/audit-checkpoint-copy.ts";
import { pinPath } from "../adapters/audit-pin.ts";
import { acquireStateLock } from "../adapters/state-lock.ts";
import { SqlitePasskeyStore } from "../adapters/passkey-sqlite.ts";
import { SqliteTransactionStore } from "../adapters/transaction-sqlite.ts";
import { audit } from "../app/audit-log.ts";
import type { Config } from "../config/schema.ts";
import { LOCAL_HOST } from "../core/host-id.ts";
import type { AuditStore } from "../ports/audit-store.ts";
import type { Clock } from "../ports/host-probe.ts";
import type { PasskeyStore } from "../ports/passkey-store.ts";
import type { TransactionStore } from "../ports/transaction-store.ts";
import { openAuditStore } from "./audit-store.ts";
import type { DaemonFeature } from "./feature.ts";
import { systemCheckpointCopy, type DaemonMode } from "./paths.ts";

/**
 * The daemon's stores, opened on first use under the state lock (read-only queries never touch SQLite): the
 * audit chain (with its checkpoint copy: configured, else for the system daemon an append-only file outside the
 * state directory) and the transaction store (a step a stopped daemon left `executing` becomes `unknown`,
 * audited, never re-run). `facts` gains the checkpoint copy and key pin lines for doctor.
 */
export interface Stores extends DaemonFeature {
  audit(): AuditStore;
  transactions(): TransactionStore;
  /** Enrolled passkeys and WebAuthn challenges (issue 23), in state.db beside the transactions. */
  passkeys(): PasskeyStore;
  /** The checkpoint copy file, when there is one (WriteFile refuses it too). */
  checkpoint_copy: string | null;
}

export function composeStores(config: Config, opts: { mode: DaemonMode; state: string; config_dir: string; clock: Clock; facts: Record<string, string>; announce: (line: string) => void }): Stores {
  const { state, facts, announce } = opts;
  const copySetting = config.audit.checkpoint_copy ?? (opts.mode === "system" ? systemCheckpointCopy() : undefined);
  const copyTarget: CheckpointCopyTarget | undefined = copySetting === undefined ? undefined : copySetting.endsWith("/") ? { type: "directory", path: copySetting } : { type: "file", path: copySetting };
  let transactions: TransactionStore | null = null;
  let passkeys: PasskeyStore | null = null;
  let auditStore: AuditStore | null = null;
  let releaseLock: (() => void) | null = null;
  const openAudit = (): AuditStore => {
    if (auditStore) return auditStore;
    releaseLock ??= acquireStateLock(state);
    if (copyTarget) {
      const file = checkpointCopyPath(copyTarget);
      facts.checkpoint_copy = file;
      if (opts.mode === "system") {
        // The daemon's user must not be able to rewrite the evidence of how far the chain grew (issue 12).
        const st = ensureAppendOnly(file);
        facts.checkpoint_copy_protection = st.append_only ? `append-only (chattr +a), owner uid ${st.owner_uid}` : `NOT append-only: ${st.note ?? "unknown"}`;
        if (!st.append_only) announce(`audit checkpoint copy ${file} is not append-only (${st.note ?? "unknown"}); the daemon's user could rewrite it`);
      }
    }
    auditStore = openAuditStore(state, {
      configDir: opts.config_dir,
      checkpointEvery: config.audit.checkpoint_every,
      checkpointIdleMs: config.audit.checkpoint_idle_ms,
      // Receipts (hgr_…) are among the redactor's built-in kinds (core/redact/rules.ts); these are extra.
      secretPatterns: config.audit.secret_patterns,
      readOnlyFallback: true,
      onWarning: (line: string) => { announce(line); },
      ...(copyTarget ? { checkpointCopy: copyTarget } : {}),
    });
    const pin = pinPath(opts.config_dir, state);
    facts.audit_key_pin = existsSync(pin) ? pin : `not pinned (${pin} could not be written)`;
    return auditStore;
  };
  const openTransactions = (): TransactionStore => {
    if (transactions) return transactions;
    releaseLock ??= acquireStateLock(state);
    const store = new SqliteTransactionStore(join(state, "state.db"));
    const interrupted = store.recoverInterrupted(opts.clock.now());
    for (const id of interrupted) {
      void audit(openAudit(), "daemon.recovered", "daemon", { transaction_id: id, host: store.get(id)?.host ?? LOCAL_HOST, status: "unknown", message: "daemon stopped while the step ran; not re-run" }, true).catch(() => undefined);
    }
    transactions = store;
    return store;
  };
  const openPasskeys = (): PasskeyStore => {
    if (passkeys) return passkeys;
    openTransactions();
    passkeys = new SqlitePasskeyStore(join(state, "state.db"));
    return passkeys;
  };
  return {
    name: "stores",
    audit: openAudit,
    transactions: openTransactions,
    passkeys: openPasskeys,
    checkpoint_copy: copyTarget ? checkpointCopyPath(copyTarget) : null,
    close: () => {
      passkeys?.close();
      transactions?.close();
      auditStore?.close();
      releaseLock?.();
    },
  };
}
