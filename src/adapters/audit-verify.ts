import { availableParallelism } from "node:os";
import { readFileSync } from "node:fs";
import type Database from "better-sqlite3";
import type { AuditEntry, Checkpoint } from "../core/audit/entry.ts";
import { KIND_GENESIS, KIND_KEY_ROTATION } from "../core/audit/entry.ts";
import { CHAIN_START, ChainWalker, checkCheckpoints, checkEntrySelf, firstFault, parseRotation, rangesJoin, trustClosure, verifyResult } from "../core/audit/verify.ts";
import type { Fault, KeyRing, RangeSummary, VerifyResult, WalkStart, Witness } from "../core/audit/verify.ts";
import { ENTRY_COLUMNS, openReadOnlyAnywhere, readAnnouncements, readDbCheckpoints } from "./audit-sqlite-schema.ts";
import { checkPasskeyApprovals, PASSKEY_ENTRY_KINDS } from "../core/audit/passkeys.ts";
import { offlineAssertionVerifier } from "./webauthn-offline.ts";
import { nodeAuditCrypto } from "./signer-ed25519.ts";
import { createHash } from "node:crypto";
import { startWorker, workerUrl } from "./ts-worker.ts";

/**
 * Verification of a stored chain (a SQLite database or a JSON Lines export), using worker threads for the
 * per-entry hash and signature checks while the main thread walks the chain order and links.
 */

/** Options for {@link verifyAuditDb} and {@link verifyAuditJsonl}. */
export interface VerifyOptions {
  /** Trusted public keys (key id → base64url raw). Empty → cannot_verify "no_key" (unless signatures is false). */
  trusted: KeyRing;
  /** Verify from this seq (the entry before it is taken as given); default: the whole chain. */
  since_seq?: number;
  /** false = fast hash-only check (order, links, hashes, checkpoint hashes; no signatures). Default true. */
  signatures?: boolean;
  /** Worker threads for the per-entry checks. Default: available cores. 0 = check in this thread. */
  workers?: number;
  /** Chains shorter than this are checked in this thread. Default 20,000 entries. */
  parallel_threshold?: number;
  /** Checkpoints from the second place (the copy), checked like the stored ones. */
  extra_checkpoints?: readonly Checkpoint[];
  /** (seq, hash) pairs the chain must contain: a missing seq is `truncated`, another hash `hash_mismatch`. */
  witnesses?: readonly Witness[];
}

/** What a worker answers for its range (see audit-verify-worker.ts); `error` is set instead when it failed. */
export interface RangeResult {
  count: number;
  /** First per-entry (hash or signature) fault in the range. */
  self: Fault | null;
  /** First order/link fault of the range walked on its own (meaningful only within the range). */
  walk_fault: Fault | null;
  first: RangeSummary["first"];
  last: RangeSummary["last"];
  /** Stored hashes at checkpoint seqs found in the range. */
  hashes: [number, string][];
  error: string | null;
}

/** A job for a worker: a storage-position range of a database, or a slice of entries. */
export type SelfCheckJob = { kind: "db"; path: string; from_pos: number; to_pos: number } | { kind: "rows"; entries: AuditEntry[]; first_pos: number };
/** `workerData` of a verify worker. */
export interface WorkerSetup {
  keys: [string, string][];
  signatures: boolean;
  checkpoint_seqs: number[];
}

/** Verifies the database at `path` (also on a read-only filesystem); unreadable or not an audit store → cannot_verify "unreadable_store". */
export async function verifyAuditDb(path: string, opts: VerifyOptions): Promise<VerifyResult> {
  let opened: ReturnType<typeof openReadOnlyAnywhere>;
  try {
    opened = openReadOnlyAnywhere(path);
  } catch (err) {
    return { status: "cannot_verify", why: "unreadable_store", detail: `cannot read audit database ${path}: ${(err as Error).message}` };
  }
  try {
    opened.db.prepare("SELECT 1 FROM audit_entries LIMIT 1").all();
  } catch (err) {
    opened.db.close();
    opened.cleanup();
    return { status: "cannot_verify", why: "unreadable_store", detail: `${path} is not a hostgate audit database: ${(err as Error).message}` };
  }
  try {
    const result = await verifyOpenDb(opened.db, opened.path, opts);
    const kinds = PASSKEY_ENTRY_KINDS.map(() => "?").join(", ");
    return await withPasskeys(result, opened.db.prepare(`SELECT seq, kind, payload FROM audit_entries WHERE kind IN (${kinds}) ORDER BY pos`).all(...PASSKEY_ENTRY_KINDS) as { seq: number; kind: string; payload: string }[]);
  } finally {
    opened.db.close();
    opened.cleanup();
  }
}

async function verifyOpenDb(db: Database.Database, path: string, opts: VerifyOptions): Promise<VerifyResult> {
  const signatures = opts.signatures ?? true;
  if (signatures && opts.trusted.size === 0) return noKey();
  const keys = trustClosure(opts.trusted, readAnnouncements(db), nodeAuditCrypto);
  const checkpoints = [...readDbCheckpoints(db), ...(opts.extra_checkpoints ?? [])];
  let start = CHAIN_START;
  let afterPos = -Infinity;
  if (opts.since_seq !== undefined && opts.since_seq > 1) {
    const anchor = db.prepare(`SELECT pos, ${ENTRY_COLUMNS} FROM audit_entries WHERE seq = ?`).get(opts.since_seq - 1) as (AuditEntry & { pos: number }) | undefined;
    if (anchor === undefined) return badInput(`entry ${opts.since_seq - 1} (the one before --since) is not in the store`);
    start = startAfter(anchor);
    afterPos = anchor.pos;
  }
  const rows = (): Iterable<AuditEntry & { pos: number }> =>
    db.prepare(`SELECT pos, ${ENTRY_COLUMNS} FROM audit_entries WHERE pos > ? ORDER BY pos`).iterate(afterPos) as Iterable<AuditEntry & { pos: number }>;
  const range = db.prepare("SELECT min(pos) AS lo, max(pos) AS hi, count(*) AS n FROM audit_entries WHERE pos > ?").get(afterPos) as { lo: number | null; hi: number | null; n: number };
  const workers = opts.workers ?? availableParallelism();
  const ctx: Ctx = { start, checkpoints, keys, signatures, witnesses: opts.witnesses ?? [] };
  if (workers > 0 && range.lo !== null && range.hi !== null && range.n >= (opts.parallel_threshold ?? 20_000)) {
    const span = range.hi - range.lo + 1;
    const jobs: SelfCheckJob[] = [];
    for (let w = 0; w < workers; w++) {
      jobs.push({ kind: "db", path, from_pos: range.lo + Math.floor((span * w) / workers), to_pos: range.lo + Math.floor((span * (w + 1)) / workers) - 1 });
    }
    return combine(await runJobs(jobs, ctx), ctx, rows);
  }
  return sequential(rows(), ctx, signatures, []);
}

/**
 * Verifies a JSON Lines export (see docs/audit-format.md, "Export"): lines `{"type":"entry",…}` in storage order
 * and `{"type":"checkpoint",…}`. Unreadable file → cannot_verify "unreadable_store"; a line that is not JSON or
 * has an unknown type → cannot_verify "bad_input".
 */
export async function verifyAuditJsonl(path: string, opts: VerifyOptions): Promise<VerifyResult> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    return { status: "cannot_verify", why: "unreadable_store", detail: `cannot read ${path}: ${(err as Error).message}` };
  }
  const entries: AuditEntry[] = [];
  const checkpoints: Checkpoint[] = [...(opts.extra_checkpoints ?? [])];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === "") continue;
    let v: Record<string, unknown>;
    try {
      v = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return badInput(`${path}, line ${i + 1}: not JSON`);
    }
    const { type, ...rest } = v;
    if (type === "entry") entries.push(rest as unknown as AuditEntry);
    else if (type === "checkpoint") checkpoints.push(rest as unknown as Checkpoint);
    else if (type !== "header") return badInput(`${path}, line ${i + 1}: unknown line type ${JSON.stringify(type)}`);
  }
  return verifyEntryList(entries, checkpoints, opts);
}

/** Verifies entries already in memory (storage order), with workers for large lists, then their passkey approvals. */
export async function verifyEntryList(entries: readonly AuditEntry[], checkpoints: readonly Checkpoint[], opts: VerifyOptions): Promise<VerifyResult> {
  return withPasskeys(await verifyEntryChain(entries, checkpoints, opts), entries);
}

/**
 * After a chain that checks out (intact or unanchored), re-verifies its passkey approvals offline
 * (core/audit/passkeys.ts): one that does not verify makes the chain `broken` (`bad_passkey_assertion`);
 * otherwise the result lists them (`passkey_approvals`) when there are any.
 */
export async function withPasskeys(result: VerifyResult, entries: Iterable<{ seq: number; kind: string; payload: string }>): Promise<VerifyResult> {
  if (result.status !== "intact" && result.status !== "unanchored") return result;
  const checked = await checkPasskeyApprovals(entries, offlineAssertionVerifier(), (t) => createHash("sha256").update(t, "utf8").digest("hex"));
  if (checked.fault !== null) return { status: "broken", reason: "bad_passkey_assertion", first_bad_seq: checked.fault.seq, detail: checked.fault.detail };
  return checked.approvals.length === 0 ? result : { ...result, passkey_approvals: checked.approvals };
}

async function verifyEntryChain(entries: readonly AuditEntry[], checkpoints: readonly Checkpoint[], opts: VerifyOptions): Promise<VerifyResult> {
  const signatures = opts.signatures ?? true;
  if (signatures && opts.trusted.size === 0) return noKey();
  const keys = trustClosure(opts.trusted, entries.filter((e) => e.kind === KIND_GENESIS || e.kind === KIND_KEY_ROTATION), nodeAuditCrypto);
  let list = entries;
  let start = CHAIN_START;
  let firstPos = 0;
  if (opts.since_seq !== undefined && opts.since_seq > 1) {
    const idx = entries.findIndex((e) => e.seq === opts.since_seq! - 1);
    if (idx < 0) return badInput(`entry ${opts.since_seq - 1} (the one before --since) is not in the input`);
    start = startAfter(entries[idx]!);
    firstPos = idx + 1;
    list = entries.slice(idx + 1);
  }
  const workers = opts.workers ?? availableParallelism();
  const ctx: Ctx = { start, checkpoints, keys, signatures, witnesses: opts.witnesses ?? [] };
  const rows = (): Iterable<AuditEntry & { pos: number }> => list.map((e, i) => ({ ...e, pos: firstPos + i }));
  if (workers > 0 && list.length >= (opts.parallel_threshold ?? 20_000)) {
    const jobs: SelfCheckJob[] = [];
    for (let w = 0; w < workers; w++) {
      const a = Math.floor((list.length * w) / workers);
      jobs.push({ kind: "rows", entries: list.slice(a, Math.floor((list.length * (w + 1)) / workers)), first_pos: firstPos + a });
    }
    return combine(await runJobs(jobs, ctx), ctx, rows);
  }
  return sequential(rows(), ctx, signatures, []);
}

interface Ctx {
  start: WalkStart;
  checkpoints: readonly Checkpoint[];
  keys: KeyRing;
  signatures: boolean;
  witnesses: readonly Witness[];
}

/**
 * Joins the workers' ranges. When they join cleanly the chain is checked against its checkpoints. When anything is
 * off, the exact first fault is found by a sequential hash-only walk in this thread, merged with the signature
 * faults the workers found (a signature check depends only on its own entry, so their positions are exact).
 */
function combine(results: readonly RangeResult[], ctx: Ctx, rows: () => Iterable<AuditEntry & { pos: number }>): VerifyResult {
  const summaries = results.map((r) => ({ first: r.first, last: r.last, fault: r.self ?? r.walk_fault }));
  if (rangesJoin(ctx.start, summaries)) {
    const lastRange = results.findLast((r) => r.first !== null);
    const walked = { lastSeq: lastRange?.last.seq ?? ctx.start.seq - 1, count: results.reduce((n, r) => n + r.count, 0) };
    const hashesAt = new Map(results.flatMap((r) => r.hashes));
    const cps = checkCheckpoints(ctx.checkpoints, { keys: ctx.keys, crypto: nodeAuditCrypto, lastSeq: walked.lastSeq, fromSeq: ctx.start.seq, hashesAt, signatures: ctx.signatures, witnesses: ctx.witnesses });
    return verifyResult(cps.faults, walked, cps.anchored_seq, ctx.signatures);
  }
  const workerFaults = results.map((r) => r.self).filter((f): f is Fault => f !== null);
  return sequential(rows(), ctx, false, workerFaults);
}

/** One-thread verification: walk + per-entry checks (`signatures` chooses whether this thread checks signatures). */
function sequential(rows: Iterable<AuditEntry & { pos: number }>, ctx: Ctx, signatures: boolean, known: readonly Fault[]): VerifyResult {
  const inline: Fault[] = [];
  const walker = walk(rows, ctx.start, ctx.checkpoints, ctx.witnesses, { keys: ctx.keys, signatures, out: inline });
  return finish(walker, [...known, ...inline], ctx);
}

function startAfter(anchor: AuditEntry): WalkStart {
  const r = anchor.kind === KIND_KEY_ROTATION ? parseRotation(anchor.payload) : null;
  return { seq: anchor.seq + 1, prev_hash: anchor.hash, prev_ts: anchor.ts, key_id: r?.new_key_id ?? anchor.key_id };
}

function walk(
  rows: Iterable<AuditEntry & { pos: number }>,
  start: WalkStart,
  checkpoints: readonly Checkpoint[],
  witnesses: readonly Witness[],
  inline: { keys: KeyRing; signatures: boolean; out: Fault[] } | null,
): ChainWalker {
  const walker = new ChainWalker(start, nodeAuditCrypto, new Set([...checkpoints.map((c) => c.seq), ...witnesses.map((w) => w.seq)]));
  for (const row of rows) {
    walker.push(row, row.pos);
    if (inline !== null && inline.out.length === 0) {
      const f = checkEntrySelf(row, inline.keys, nodeAuditCrypto, inline.signatures);
      if (f !== null) inline.out.push({ ...f, pos: row.pos });
    }
  }
  return walker;
}

function finish(walker: ChainWalker, selfFaults: readonly (Fault | null)[], ctx: Ctx): VerifyResult {
  const chain = firstFault([...selfFaults.filter((f): f is Fault => f !== null), ...(walker.firstFault === null ? [] : [walker.firstFault])]);
  if (chain !== null) return verifyResult([chain], walker, 0, ctx.signatures);
  const cps = checkCheckpoints(ctx.checkpoints, { keys: ctx.keys, crypto: nodeAuditCrypto, lastSeq: walker.lastSeq, fromSeq: ctx.start.seq, hashesAt: walker.hashesAt, signatures: ctx.signatures, witnesses: ctx.witnesses });
  return verifyResult(cps.faults, walker, cps.anchored_seq, ctx.signatures);
}

function noKey(): VerifyResult {
  return { status: "cannot_verify", why: "no_key", detail: "no trusted public key: pass --public-key FILE (from `hostgate audit public-key`) or --state-dir" };
}

function badInput(detail: string): VerifyResult {
  return { status: "cannot_verify", why: "bad_input", detail };
}

/** Runs one job per worker thread and collects their results in job order. */
async function runJobs(jobs: readonly SelfCheckJob[], ctx: Ctx): Promise<RangeResult[]> {
  const url = workerUrl(import.meta.url, "audit-verify-worker");
  const setup: WorkerSetup = { keys: [...ctx.keys], signatures: ctx.signatures, checkpoint_seqs: [...ctx.checkpoints.map((c) => c.seq), ...ctx.witnesses.map((w) => w.seq)] };
  const workers = jobs.map(() => startWorker(url, { workerData: setup }));
  try {
    return await Promise.all(
      jobs.map(
        (job, i) =>
          new Promise<RangeResult>((resolve, reject) => {
            const w = workers[i]!;
            w.once("error", reject);
            w.once("message", (m: RangeResult) => {
              if (m.error !== null) reject(new Error(`audit verify worker failed: ${m.error}`));
              else resolve(m);
            });
            w.postMessage(job);
          }),
      ),
    );
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}
