/**
 * Audit chain benchmark (issue 5, "Performance"). Prints one JSON object:
 * - appends_per_s_group_commit: signed appends/s, non-durable (group commit), `APPENDS` entries (default 100,000);
 * - appends_per_s_durable: signed appends/s when each one waits for its own fsync'd commit (default 2,000);
 * - verify_*: a `VERIFY_N`-entry chain (default 1,000,000) verified in full (Ed25519 + hashes) with 1 worker
 *   (skip with SKIP_ONE_WORKER=1) and with one worker per core, and hash-only; each with wall seconds, entries/s,
 *   process CPU seconds and entries per CPU-second (the figure that does not depend on other load on the machine).
 * Run: `npx tsx bench/audit.ts` (set VERIFY_N=100000 for a quick run).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { openAuditStore } from "../src/daemon/audit-store.ts";
import { verifyAuditDb } from "../src/adapters/audit-verify.ts";
import { Ed25519Signer } from "../src/adapters/signer-ed25519.ts";

const APPENDS = Number(process.env.APPENDS ?? 100_000);
const DURABLE = Number(process.env.DURABLE ?? 2_000);
const VERIFY_N = Number(process.env.VERIFY_N ?? 1_000_000);

const payload = (i: number) => ({ action: "RestartService", params: { unit: "nginx.service" }, txid: `tx-${i}`, host: "web-1" });

async function appendMany(dir: string, n: number): Promise<{ per_s: number; per_cpu_s: number }> {
  const store = openAuditStore(dir, { checkpointIdleMs: 0 });
  const cpu = process.cpuUsage();
  const t = performance.now();
  const batch: Promise<unknown>[] = [];
  for (let i = 0; i < n; i++) {
    batch.push(store.append({ kind: "bench.entry", actor: "uid:0", payload: payload(i) }));
    if (batch.length >= 4096) await Promise.all(batch.splice(0));
  }
  await Promise.all(batch);
  const s = (performance.now() - t) / 1000;
  const used = process.cpuUsage(cpu);
  store.close();
  return { per_s: Math.round(n / s), per_cpu_s: Math.round(n / ((used.user + used.system) / 1e6)) };
}

async function durable(dir: string, n: number): Promise<number> {
  const store = openAuditStore(dir, { checkpointIdleMs: 0 });
  const t = performance.now();
  for (let i = 0; i < n; i++) await store.append({ kind: "execute.intent", actor: "uid:0", payload: payload(i) }, { durable: true });
  const s = (performance.now() - t) / 1000;
  store.close();
  return n / s;
}

/** Wall time and process CPU time (all threads): on a shared machine entries per CPU-second is the load-independent figure. */
async function timeVerify(dir: string, workers: number, signatures: boolean) {
  const trusted = Ed25519Signer.open(dir).knownPublicKeys();
  const cpu = process.cpuUsage();
  const t = performance.now();
  const r = await verifyAuditDb(join(dir, "audit.db"), { trusted, workers, signatures });
  const s = (performance.now() - t) / 1000;
  const used = process.cpuUsage(cpu);
  const cpuSeconds = (used.user + used.system) / 1e6;
  if (r.status !== "intact") throw new Error(`bench chain not intact: ${JSON.stringify(r)}`);
  return { workers, entries: r.checked, seconds: round(s), entries_per_s: Math.round(r.checked / s), cpu_seconds: round(cpuSeconds), entries_per_cpu_s: Math.round(r.checked / cpuSeconds) };
}

const round = (x: number) => Math.round(x * 1000) / 1000;
const root = mkdtempSync(join(tmpdir(), "hostgate-bench-audit-"));
try {
  const groupRate = await appendMany(join(root, "a"), APPENDS);
  const durableRate = await durable(join(root, "d"), DURABLE);
  const genStart = performance.now();
  await appendMany(join(root, "v"), VERIFY_N - 1);
  const genSeconds = (performance.now() - genStart) / 1000;
  const cores = availableParallelism();
  const full1 = process.env.SKIP_ONE_WORKER ? null : await timeVerify(join(root, "v"), 1, true);
  const fullN = await timeVerify(join(root, "v"), cores, true);
  const hashOnly = await timeVerify(join(root, "v"), cores, false);
  console.log(JSON.stringify({
    cores,
    load_average_1m_at_end: round(loadavg()[0]!),
    appends: APPENDS,
    appends_per_s_group_commit: groupRate.per_s,
    appends_per_cpu_s_group_commit: groupRate.per_cpu_s,
    appends_per_s_durable: Math.round(durableRate),
    verify_chain_entries: VERIFY_N,
    build_chain_seconds: round(genSeconds),
    verify_full_1_worker: full1,
    [`verify_full_${cores}_workers`]: fullN,
    verify_hash_only: hashOnly,
  }));
} finally {
  rmSync(root, { recursive: true, force: true });
}
