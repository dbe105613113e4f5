/**
 * Approval console benchmark (issue 23, "Performance"). Prints one JSON object:
 * - page_load_ms: one console page fetched over loopback HTTP with a session (the pending list with
 *   `PENDING` plans, default 10, and one plan page with a WriteFile diff): p50/p95/max over `N` loads (default 200);
 *   target ≤ 100 ms;
 * - approve_round_trip_ms: POST /plans/:id/approve with a passkey assertion (verify + receipt + audit entry,
 *   durable) over loopback HTTP, one fresh plan per approval, p50/p95/max over `APPROVALS` (default 100); target ≤ 50 ms.
 *   The approval options (challenge) are fetched before the timer starts.
 * Assertions come from a software ES256 authenticator (test/support/soft-authenticator.ts), enrolled through the
 * daemon's own passkey backend (src/app/passkeys.ts: real WebAuthn verification, the SQLite credential store and
 * the signed chain), as in production.
 * Run: `npx tsx bench/console.ts`.
 */
import { loadavg } from "node:os";
import type { PlanResult } from "../src/ipc/protocol.ts";
import { enrollmentFinish, enrollmentOptions } from "../src/app/passkeys.ts";
import { inProcessCaller } from "../src/core/caller.ts";
import { SoftAuthenticator } from "../test/support/soft-authenticator.ts";
import { csrfOf, login, raw, startRig } from "../test/console/harness.ts";

const N = Number(process.env.N ?? 200);
const APPROVALS = Number(process.env.APPROVALS ?? 100);
const PENDING = Number(process.env.PENDING ?? 10);

const stats = (xs: number[]): { p50: number; p95: number; max: number; n: number } => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number): number => Number(s[Math.min(s.length - 1, Math.floor(q * s.length))]!.toFixed(2));
  return { p50: at(0.5), p95: at(0.95), max: Number(s[s.length - 1]!.toFixed(2)), n: s.length };
};

const rig = await startRig({ passkeys: "daemon" });
const key = new SoftAuthenticator({ id: "localhost", origin: rig.origin });
try {
  const rp = { id: "localhost", origin: rig.origin, name: "hostgate" };
  const o = await enrollmentOptions(rig.d.service.deps, rp, "bench");
  await enrollmentFinish(rig.d.service.deps, rp, { name: "bench", registration: key.register(o.creation) }, inProcessCaller("admin", "console"));
  // Real time for the session's idle clock is not needed: the rig's clock does not move during the run.
  const cookie = await login(rig);
  const plans: PlanResult[] = [];
  for (let i = 0; i < PENDING; i++) plans.push(await rig.planWrites([`line ${i}\n`.repeat(50)]));
  const time = async (f: () => Promise<unknown>): Promise<number> => { const t = performance.now(); await f(); return performance.now() - t; };
  const list: number[] = [];
  const plan: number[] = [];
  for (let i = 0; i < N; i++) {
    list.push(await time(() => raw(rig.port, "GET", "/", { headers: { cookie } })));
    plan.push(await time(() => raw(rig.port, "GET", `/plans/${plans[i % plans.length]!.plan_id}`, { headers: { cookie } })));
  }
  const approve: number[] = [];
  for (let i = 0; i < APPROVALS; i++) {
    const p = await rig.planWrites([`approve ${i}\n`]);
    const page = await raw(rig.port, "GET", `/plans/${p.plan_id}`, { headers: { cookie } });
    const headers = { cookie, origin: rig.origin, "content-type": "application/json", "x-csrf-token": csrfOf(page.body) };
    const ans = await raw(rig.port, "POST", `/plans/${p.plan_id}/approve/options`, { headers, body: "{}" });
    if (ans.status !== 200) throw new Error(`approve options answered ${ans.status}: ${ans.body}`);
    const o = JSON.parse(ans.body) as { options: { challenge: string }; steps: unknown[] };
    const body = JSON.stringify({ shown: o.steps, assertion: key.assert(o.options) });
    let status = 0;
    approve.push(await time(async () => { status = (await raw(rig.port, "POST", `/plans/${p.plan_id}/approve`, { headers, body })).status; }));
    if (status !== 200) throw new Error(`approve answered ${status}`);
    // The approve limit is per minute of the daemon's clock: move it so the run measures work, not the limiter.
    rig.clock.advance(6_001);
  }
  console.log(JSON.stringify({
    backend: "src/app/passkeys.ts",
    page_load_ms: { pending_list: stats(list), plan_page: stats(plan), pending_plans: PENDING, target: 100 },
    approve_round_trip_ms: { ...stats(approve), target: 50 },
    loadavg_1m: Number(loadavg()[0]!.toFixed(2)),
  }));
} finally {
  await rig.close();
}
