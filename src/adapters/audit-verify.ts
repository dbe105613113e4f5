import { availableParallelism } from "node:os";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { dirname, join } from "node:path";
import { Worker } from "node:worker_threads";
import type Database from "better-sqlite3";
import type { AuditEntry, Checkpoint } from "../core/audit/entry.ts";
import { KIND_GENESIS, KIND_KEY_ROTATION } from "../core/audit/entry.ts";
import { CHAIN_START, ChainWalker, checkCheckpoints, checkEntrySelf, firstFault, parseRotation, trustClosure, verifyResult } from "../core/audit/verify.ts";
import type { Fault, KeyRing, VerifyResult, WalkStart } from "../core/audit/verify.ts";
import { ENTRY_COLUMNS, openReadOnlyAnywhere, readAnnouncements, readDbCheckpoints } from "./audit-sqlite-schema.ts";
import { nodeAuditCrypto } from "./signer-ed25519.ts";

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
}

/** A job for a worker: a storage-position range of a database, or a slice of entries. */
export type SelfCheckJob = { kind: "db"; path: string; from_pos: number; to_pos: number } | { kind: "rows"; entries: AuditEntry[]; first_pos: number };
/** `workerData` of a verify worker. */
export interface WorkerSetup {
  keys: [string, string][];
  signatures: boolean;
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
    return await verifyOpenDb(opened.db, opened.path, opts);
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
  const range = db.prepare("SELECT min(pos) AS lo, max(pos) AS hi, count(*) AS n FROM audit_entries WHERE pos > ?").get(afterPos) as { lo: number | null; hi: number | null; n: number };
  const workers = opts.workers ?? availableParallelism();
  const parallel = workers > 0 && range.n >= (opts.parallel_threshold ?? 20_000) && range.lo !== null && range.hi !== null;
  const jobs: Promise<{ fault: Fault | null; count: number }>[] = [];
  if (parallel) {
    const span = range.hi! - range.lo! + 1;
    const pool = startPool(workers, keys, signatures);
    try {
      for (let w = 0; w < workers; w++) {
        const from = range.lo! + Math.floor((span * w) / workers);
        const to = range.lo! + Math.floor((span * (w + 1)) / workers) - 1;
        jobs.push(pool.run(w, { kind: "db", path, from_pos: from, to_pos: to }));
      }
      const walker = walk(lightRows(db, afterPos), start, checkpoints, null);
      const results = await Promise.all(jobs);
      return finish(walker, results.map((r) => r.fault), checkpoints, keys, start, signatures);
    } finally {
      await pool.close();
    }
  }
  const inline: Fault[] = [];
  const walker = walk(db.prepare(`SELECT pos, ${ENTRY_COLUMNS} FROM audit_entries WHERE pos > ? ORDER BY pos`).iterate(afterPos) as Iterable<AuditEntry & { pos: number }>, start, checkpoints, { keys, signatures, out: inline });
  return finish(walker, inline, checkpoints, keys, start, signatures);
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

/** Verifies entries already in memory (storage order), with workers for large lists. */
export async function verifyEntryList(entries: readonly AuditEntry[], checkpoints: readonly Checkpoint[], opts: VerifyOptions): Promise<VerifyResult> {
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
  const iter = list.map((e, i) => ({ ...e, pos: firstPos + i }));
  if (workers > 0 && list.length >= (opts.parallel_threshold ?? 20_000)) {
    const pool = startPool(workers, keys, signatures);
    try {
      const jobs: Promise<{ fault: Fault | null; count: number }>[] = [];
      for (let w = 0; w < workers; w++) {
        const a = Math.floor((list.length * w) / workers);
        const b = Math.floor((list.length * (w + 1)) / workers);
        jobs.push(pool.run(w, { kind: "rows", entries: list.slice(a, b), first_pos: firstPos + a }));
      }
      const walker = walk(iter, start, checkpoints, null);
      const results = await Promise.all(jobs);
      return finish(walker, results.map((r) => r.fault), checkpoints, keys, start, signatures);
    } finally {
      await pool.close();
    }
  }
  const inline: Fault[] = [];
  const walker = walk(iter, start, checkpoints, { keys, signatures, out: inline });
  return finish(walker, inline, checkpoints, keys, start, signatures);
}

/**
 * Rows for the main thread's walk when workers do the per-entry checks: only the columns the walk needs
 * (payload only for genesis and rotation entries, whose payload the walk parses), read as raw arrays.
 */
function* lightRows(db: Database.Database, afterPos: number): Iterable<AuditEntry & { pos: number }> {
  const stmt = db
    .prepare(
      `SELECT pos, seq, ts, kind, prev_hash, hash, key_id, CASE WHEN kind IN ('${KIND_GENESIS}', '${KIND_KEY_ROTATION}') THEN payload ELSE '' END FROM audit_entries WHERE pos > ? ORDER BY pos`,
    )
    .raw(true);
  for (const r of stmt.iterate(afterPos) as Iterable<[number, number, number, string, string, string, string, string]>) {
    yield { pos: r[0], seq: r[1], ts: r[2], kind: r[3], actor: "", payload: r[7], prev_hash: r[4], hash: r[5], key_id: r[6], signature: "" };
  }
}

function startAfter(anchor: AuditEntry): WalkStart {
  const r = anchor.kind === KIND_KEY_ROTATION ? parseRotation(anchor.payload) : null;
  return { seq: anchor.seq + 1, prev_hash: anchor.hash, prev_ts: anchor.ts, key_id: r?.new_key_id ?? anchor.key_id };
}

function walk(
  rows: Iterable<AuditEntry & { pos: number }>,
  start: WalkStart,
  checkpoints: readonly Checkpoint[],
  inline: { keys: KeyRing; signatures: boolean; out: Fault[] } | null,
): ChainWalker {
  const walker = new ChainWalker(start, nodeAuditCrypto, new Set(checkpoints.map((c) => c.seq)));
  for (const row of rows) {
    walker.push(row, row.pos);
    if (inline !== null && inline.out.length === 0) {
      const f = checkEntrySelf(row, inline.keys, nodeAuditCrypto, inline.signatures);
      if (f !== null) inline.out.push({ ...f, pos: row.pos });
    }
  }
  return walker;
}

function finish(walker: ChainWalker, selfFaults: readonly (Fault | null)[], checkpoints: readonly Checkpoint[], keys: KeyRing, start: WalkStart, signatures: boolean): VerifyResult {
  const chain = firstFault([...selfFaults.filter((f): f is Fault => f !== null), ...(walker.firstFault === null ? [] : [walker.firstFault])]);
  if (chain !== null) return verifyResult([chain], walker, 0, signatures);
  const cps = checkCheckpoints(checkpoints, { keys, crypto: nodeAuditCrypto, lastSeq: walker.lastSeq, fromSeq: start.seq, hashesAt: walker.hashesAt, signatures });
  return verifyResult(cps.faults, walker, cps.anchored_seq, signatures);
}

function noKey(): VerifyResult {
  return { status: "cannot_verify", why: "no_key", detail: "no trusted public key: pass --public-key FILE (from `hostgate audit public-key`) or --state-dir" };
}

function badInput(detail: string): VerifyResult {
  return { status: "cannot_verify", why: "bad_input", detail };
}

/**
 * Starts a worker on a TypeScript file: when running from sources (tests, tsx) the worker first registers the
 * tsx loader, resolved from this package, then imports the file; a compiled build imports it directly.
 */
function spawnWorker(url: URL, setup: WorkerSetup): Worker {
  if (!url.pathname.endsWith(".ts")) return new Worker(url, { workerData: setup });
  const tsxDir = dirname(createRequire(import.meta.url).resolve("tsx/package.json"));
  const api = pathToFileURL(join(tsxDir, "dist/esm/api/index.mjs")).href;
  const code = `import(${JSON.stringify(api)}).then((m) => { m.register(); return import(${JSON.stringify(url.href)}); });`;
  return new Worker(code, { eval: true, workerData: setup });
}

interface Pool {
  run(worker: number, job: SelfCheckJob): Promise<{ fault: Fault | null; count: number }>;
  close(): Promise<void>;
}

/** Starts `n` verify workers. Under a TypeScript loader (tests, tsx) the workers load the same loader. */
function startPool(n: number, keys: KeyRing, signatures: boolean): Pool {
  const url = new URL("./audit-verify-worker.ts", import.meta.url);
  const setup: WorkerSetup = { keys: [...keys], signatures };
  const workers = Array.from({ length: n }, () => spawnWorker(url, setup));
  return {
    run(i, job) {
      const w = workers[i % n]!;
      return new Promise((resolve, reject) => {
        const onError = (err: Error): void => {
          reject(err);
        };
        w.once("error", onError);
        w.once("message", (m: { fault: Fault | null; count: number; error: string | null }) => {
          w.off("error", onError);
          if (m.error !== null) reject(new Error(`verify worker failed: ${m.error}`));
          else resolve(m);
        });
        w.postMessage(job);
      });
    },
    async close() {
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}
