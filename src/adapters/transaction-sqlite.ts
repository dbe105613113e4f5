import Database from "better-sqlite3";
import { openPrivateDatabase, tightenDatabaseFiles } from "./private-files.ts";
import { HostgateError } from "../core/errors.ts";
import type { Separation } from "../core/approval.ts";
import type { Transaction, TxState } from "../core/transaction/transaction.ts";
import type { TransactionStore, TxFilter } from "../ports/transaction-store.ts";
import { migrate } from "./sqlite-migrate.ts";
import { STATE_MIGRATIONS } from "./state-migrations/index.ts";


interface Row {
  id: string; action_name: string; host: string; params: string; risk_level: string; preview: string; preview_hash: string; state: string;
  actor: string; created_at: number; updated_at: number; plan_expires_at: number; approved_at: number | null; approved_by: string | null;
  receipt_hash: string | null; receipt_expires_at: number | null; receipt_consumed_at: number | null; result: string | null; error: string | null;
  planner: string | null; intent: string | null; separation: string | null; preview_salt: string | null;
  plan_id: string | null; plan_seq: number | null;
  revert_prior: string | null; confirm_deadline: number | null; confirmed_at: number | null; confirmed_by: string | null;
}

/** Thrown inside a SQLite transaction to roll it back: one step of a plan did not move. */
class PlanMoved extends Error {}

function toTx(r: Row): Transaction {
  return {
    id: r.id,
    // Rows from before plans are plans of one (migration 005 backfills them; a null still reads that way).
    plan_id: r.plan_id ?? r.id,
    plan_seq: r.plan_seq ?? 1,
    action_name: r.action_name,
    host: r.host,
    params: JSON.parse(r.params) as Record<string, unknown>,
    risk_level: r.risk_level as Transaction["risk_level"],
    preview: JSON.parse(r.preview) as Transaction["preview"],
    preview_hash: r.preview_hash,
    preview_salt: r.preview_salt,
    state: r.state as TxState,
    actor: r.actor,
    created_at: r.created_at,
    updated_at: r.updated_at,
    plan_expires_at: r.plan_expires_at,
    approved_at: r.approved_at,
    approved_by: r.approved_by,
    receipt_expires_at: r.receipt_expires_at,
    planner: r.planner as Transaction["planner"],
    intent: r.intent,
    separation: r.separation as Transaction["separation"],
    result: r.result === null ? null : JSON.parse(r.result),
    error: r.error === null ? null : (JSON.parse(r.error) as Transaction["error"]),
    confirm_deadline: r.confirm_deadline,
    confirmed_at: r.confirmed_at,
    confirmed_by: r.confirmed_by,
  };
}

/**
 * Transaction state in SQLite (better-sqlite3 12), schema by migrations (adapters/state-migrations/, PRAGMA
 * user_version), WAL mode, `synchronous = FULL` so a committed state change
 * survives power loss. Each transition is one UPDATE guarded by the expected current state; SQLite serialises
 * writers across processes, so exactly one caller sees `changes === 1`.
 */
export class SqliteTransactionStore implements TransactionStore {
  private readonly db: Database.Database;

  /**
   * Opens (creating and migrating) the store at `dbPath`. With `readOnly` it opens an existing database without
   * writing anything (no directory, no migration, no WAL switch): how `hostgate pending` lists plans when no
   * daemon runs; a database of another schema version then throws `unavailable` saying which.
   */
  constructor(dbPath: string, opts: { readOnly?: boolean } = {}) {
    if (opts.readOnly) {
      this.db = SqliteTransactionStore.openReadOnly(dbPath);
      return;
    }
    try {
      this.db = openPrivateDatabase(dbPath);
      this.db.pragma("journal_mode = WAL");
      tightenDatabaseFiles(dbPath);
      this.db.pragma("synchronous = FULL");
      this.db.pragma("busy_timeout = 5000");
      migrate(this.db, STATE_MIGRATIONS, dbPath);
    } catch (err) {
      if (err instanceof HostgateError) throw err;
      throw new HostgateError("unavailable", `Cannot open the transaction store ${dbPath}: ${(err as Error).message}`, {
        hint: "Check that the state directory is writable by the daemon user and the disk is not full.",
        cause: err,
      });
    }
  }

  private static openReadOnly(dbPath: string): Database.Database {
    let db: Database.Database;
    try {
      db = new Database(dbPath, { readonly: true, fileMustExist: true });
    } catch (err) {
      throw new HostgateError("unavailable", `Cannot read the transaction store ${dbPath}: ${(err as Error).message}`, { hint: "Run the command as the user the daemon runs as, or start the daemon and ask it.", cause: err });
    }
    const version = db.pragma("user_version", { simple: true }) as number;
    const newest = STATE_MIGRATIONS[STATE_MIGRATIONS.length - 1]!.version;
    if (version !== newest) {
      db.close();
      throw new HostgateError("unavailable", `The transaction store ${dbPath} has schema version ${version}; this hostgate reads version ${newest}.`, { hint: "Start the daemon (a front or hostgate daemon) once to migrate it, then ask it." });
    }
    return db;
  }

  insert(tx: Transaction): void {
    this.db.prepare(`INSERT INTO transactions (id, plan_id, plan_seq, action_name, host, params, risk_level, preview, preview_hash, state, actor, created_at, updated_at, plan_expires_at, planner, intent, preview_salt)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(tx.id, tx.plan_id, tx.plan_seq, tx.action_name, tx.host, JSON.stringify(tx.params), tx.risk_level, JSON.stringify(tx.preview), tx.preview_hash, tx.state, tx.actor, tx.created_at, tx.updated_at, tx.plan_expires_at, tx.planner, tx.intent, tx.preview_salt);
  }

  planSteps(planId: string): Transaction[] {
    return (this.db.prepare("SELECT * FROM transactions WHERE plan_id = ? ORDER BY plan_seq, id").all(planId) as Row[]).map(toTx);
  }

  planIdOf(id: string): string | null {
    const asPlan = this.db.prepare("SELECT plan_id FROM transactions WHERE plan_id = ? LIMIT 1").get(id) as { plan_id: string } | undefined;
    if (asPlan) return asPlan.plan_id;
    const row = this.db.prepare("SELECT plan_id, id FROM transactions WHERE id = ?").get(id) as { plan_id: string | null; id: string } | undefined;
    return row ? (row.plan_id ?? row.id) : null;
  }

  planIdsWithPrefix(prefix: string, limit: number): string[] {
    const hi = `${prefix}\u{10FFFF}`;
    const rows = this.db.prepare(`SELECT DISTINCT plan_id FROM (
        SELECT plan_id FROM transactions WHERE plan_id >= ? AND plan_id < ?
        UNION SELECT plan_id FROM transactions WHERE id >= ? AND id < ?)
      ORDER BY plan_id LIMIT ?`).all(prefix, hi, prefix, hi, limit) as { plan_id: string }[];
    return rows.map((r) => r.plan_id);
  }

  get(id: string): Transaction | null {
    const row = this.db.prepare("SELECT * FROM transactions WHERE id = ?").get(id) as Row | undefined;
    return row ? toTx(row) : null;
  }

  list(filter: TxFilter = {}): Transaction[] {
    const where: string[] = [];
    const args: unknown[] = [];
    if (filter.state) { where.push("state = ?"); args.push(filter.state); }
    if (filter.action) { where.push("action_name = ?"); args.push(filter.action); }
    if (filter.since !== undefined) { where.push("created_at >= ?"); args.push(filter.since); }
    const limit = Math.min(Math.max(filter.limit ?? 50, 1), 1000);
    const sql = `SELECT * FROM transactions ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY created_at DESC, id LIMIT ${limit}`;
    return (this.db.prepare(sql).all(...args) as Row[]).map(toTx);
  }

  findByReceiptHash(receiptHash: string): Transaction[] {
    return (this.db.prepare("SELECT * FROM transactions WHERE receipt_hash = ? ORDER BY plan_seq, id").all(receiptHash) as Row[]).map(toTx);
  }

  receiptConsumed(id: string): boolean {
    const row = this.db.prepare("SELECT receipt_consumed_at FROM transactions WHERE id = ?").get(id) as { receipt_consumed_at: number | null } | undefined;
    return row?.receipt_consumed_at != null;
  }

  approvePlan(planId: string, expected: readonly { transaction_id: string; preview_hash: string }[], receiptHash: string, approvedBy: string, now: number, receiptExpiresAt: number, separation: Separation): boolean {
    const update = this.db.prepare(`UPDATE transactions SET state = 'approved', receipt_hash = ?, approved_by = ?, approved_at = ?, receipt_expires_at = ?, separation = ?, updated_at = ?
      WHERE id = ? AND plan_id = ? AND plan_seq = ? AND preview_hash = ? AND state = 'planned' AND plan_expires_at > ?`);
    try {
      this.db.transaction(() => {
        const rows = this.db.prepare("SELECT id, preview_hash FROM transactions WHERE plan_id = ? ORDER BY plan_seq, id").all(planId) as { id: string; preview_hash: string }[];
        if (rows.length === 0 || rows.length !== expected.length) throw new PlanMoved();
        rows.forEach((r, i) => {
          const e = expected[i]!;
          if (r.id !== e.transaction_id || r.preview_hash !== e.preview_hash) throw new PlanMoved();
          if (update.run(receiptHash, approvedBy, now, receiptExpiresAt, separation, now, r.id, planId, i + 1, e.preview_hash, now).changes !== 1) throw new PlanMoved();
        });
      }).immediate();
    } catch (err) {
      if (err instanceof PlanMoved) return false;
      throw err;
    }
    return true;
  }

  rejectPlan(planId: string, by: string, now: number): string[] {
    return this.db.transaction(() => {
      const ids = (this.db.prepare("SELECT id FROM transactions WHERE plan_id = ? AND state = 'planned' ORDER BY plan_seq, id").all(planId) as { id: string }[]).map((r) => r.id);
      this.db.prepare("UPDATE transactions SET state = 'rejected', approved_by = ?, updated_at = ? WHERE plan_id = ? AND state = 'planned'").run(by, now, planId);
      return ids;
    }).immediate();
  }

  consumeReceipt(id: string, receiptHash: string, now: number): boolean {
    // Plan order in the same statement: no earlier step of the plan may be anything but succeeded.
    return this.db.prepare(`UPDATE transactions SET state = 'executing', receipt_consumed_at = ?, updated_at = ?
      WHERE id = ? AND state = 'approved' AND receipt_hash = ? AND receipt_consumed_at IS NULL AND receipt_expires_at > ?
        AND NOT EXISTS (SELECT 1 FROM transactions AS e WHERE e.plan_id = transactions.plan_id AND e.plan_seq < transactions.plan_seq AND e.state NOT IN ('succeeded', 'awaiting_confirm'))`).run(now, now, id, receiptHash, now).changes === 1;
  }

  finish(id: string, state: "succeeded" | "failed" | "unknown", result: unknown, error: { code: string; message: string } | null, now: number): boolean {
    return this.db.prepare("UPDATE transactions SET state = ?, result = ?, error = ?, updated_at = ? WHERE id = ? AND state = 'executing'")
      .run(state, result === undefined ? null : JSON.stringify(result), error === null ? null : JSON.stringify(error), now, id).changes === 1;
  }

  recordPrior(id: string, prior: unknown, now: number): boolean {
    return this.db.prepare("UPDATE transactions SET revert_prior = ?, updated_at = ? WHERE id = ? AND state = 'executing'").run(JSON.stringify(prior ?? null), now, id).changes === 1;
  }

  priorOf(id: string): { prior: unknown } | undefined {
    const row = this.db.prepare("SELECT revert_prior FROM transactions WHERE id = ?").get(id) as { revert_prior: string | null } | undefined;
    return row?.revert_prior == null ? undefined : { prior: JSON.parse(row.revert_prior) };
  }

  awaitConfirm(id: string, result: unknown, deadline: number, now: number): boolean {
    return this.db.prepare("UPDATE transactions SET state = 'awaiting_confirm', result = ?, confirm_deadline = ?, updated_at = ? WHERE id = ? AND state = 'executing' AND revert_prior IS NOT NULL")
      .run(result === undefined ? null : JSON.stringify(result), deadline, now, id).changes === 1;
  }

  confirm(id: string, by: string, now: number): boolean {
    return this.db.prepare("UPDATE transactions SET state = 'succeeded', confirmed_at = ?, confirmed_by = ?, updated_at = ? WHERE id = ? AND state = 'awaiting_confirm' AND confirm_deadline > ?")
      .run(now, by, now, id, now).changes === 1;
  }

  claimRevert(id: string, now: number): boolean {
    return this.db.prepare("UPDATE transactions SET state = 'reverting', updated_at = ? WHERE id = ? AND state = 'awaiting_confirm'").run(now, id).changes === 1;
  }

  finishRevert(id: string, state: "reverted" | "unknown", error: { code: string; message: string } | null, now: number): boolean {
    return this.db.prepare("UPDATE transactions SET state = ?, error = ?, updated_at = ? WHERE id = ? AND state = 'reverting'")
      .run(state, error === null ? null : JSON.stringify(error), now, id).changes === 1;
  }

  dueReverts(dueBy?: number): Transaction[] {
    const due = dueBy === undefined ? "state = 'awaiting_confirm'" : "(state = 'awaiting_confirm' AND confirm_deadline <= ?)";
    const args = dueBy === undefined ? [] : [dueBy];
    return (this.db.prepare(`SELECT * FROM transactions WHERE ${due} OR state = 'reverting' ORDER BY confirm_deadline, id`).all(...args) as Row[]).map(toTx);
  }

  nextConfirmDeadline(): number | null {
    const row = this.db.prepare("SELECT MIN(confirm_deadline) AS d FROM transactions WHERE state = 'awaiting_confirm'").get() as { d: number | null };
    return row.d;
  }

  expire(id: string, now: number): boolean {
    return this.db.prepare("UPDATE transactions SET state = 'expired', updated_at = ? WHERE id = ? AND state IN ('planned', 'approved')").run(now, id).changes === 1;
  }

  recoverInterrupted(now: number): string[] {
    return this.db.transaction(() => {
      // A step with a recorded prior state is restored (its confirm window ends now) instead of left unknown.
      this.db.prepare("UPDATE transactions SET state = 'awaiting_confirm', confirm_deadline = ?, updated_at = ? WHERE state = 'executing' AND revert_prior IS NOT NULL").run(now, now);
      const ids = (this.db.prepare("SELECT id FROM transactions WHERE state = 'executing'").all() as { id: string }[]).map((r) => r.id);
      this.db.prepare(`UPDATE transactions SET state = 'unknown', updated_at = ?, error = '{"code":"interrupted","message":"The daemon stopped while this step ran; its outcome is unknown. Check the host before planning it again."}' WHERE state = 'executing'`).run(now);
      return ids;
    })();
  }

  close(): void {
    this.db.close();
  }
}
