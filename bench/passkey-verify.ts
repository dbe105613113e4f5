/**
 * Passkey approvals verified offline (issue 23, "Performance": 1,000 passkey approvals ≤ 1 s). Builds an audit
 * chain in a temp dir with one `passkey.enrolled` entry and `N` (default 1,000) `approve` entries, each with a
 * real ES256 assertion over its derived challenge (test/support/soft-authenticator.ts), then prints one JSON object:
 * - passkey_check_s: the passkey pass alone (core/audit/passkeys.ts with adapters/webauthn-offline.ts), wall seconds;
 * - per_approval_ms: the same per approval; cpu_s: process CPU seconds of that pass;
 * - full_verify_s: `verifyAuditDb` of the whole chain (hashes, Ed25519 signatures, checkpoints, then the passkeys);
 * - target_s: 1, and within_target for passkey_check_s.
 * Run: `npx tsx bench/passkey-verify.ts` (N=… for another count).
 */
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { verifyAuditDb } from "../src/adapters/audit-verify.ts";
import { Ed25519Signer } from "../src/adapters/signer-ed25519.ts";
import { offlineAssertionVerifier } from "../src/adapters/webauthn-offline.ts";
import { checkPasskeyApprovals } from "../src/core/audit/passkeys.ts";
import { approvalChallenge } from "../src/core/passkey-challenge.ts";
import { openAuditStore } from "../src/daemon/audit-store.ts";
import { SoftAuthenticator } from "../test/support/soft-authenticator.ts";

const N = Number(process.env.N ?? 1000);
const sha256Hex = (t: string): string => createHash("sha256").update(t, "utf8").digest("hex");
const rp = { id: "localhost", origin: "http://localhost:7391" };

const dir = mkdtempSync(join(tmpdir(), "hg-bench-passkeys-"));
try {
  const store = openAuditStore(dir, { checkpointIdleMs: 0 });
  const auth = new SoftAuthenticator(rp);
  await store.append({ kind: "passkey.enrolled", actor: "bench", payload: { credential_id: auth.credentialId, name: "bench key", public_key: Buffer.from(auth.coseKey()).toString("base64url"), rp_id: rp.id, origin: rp.origin } });
  for (let i = 0; i < N; i++) {
    const plan = `plan-${i}`;
    const steps = [{ transaction_id: `tx-${i}-1`, preview_hash: sha256Hex(`a${i}`) }, { transaction_id: `tx-${i}-2`, preview_hash: sha256Hex(`b${i}`) }];
    const nonce = Buffer.from(`nonce-${i}`).toString("base64url");
    const a = auth.assert({ challenge: approvalChallenge(plan, steps, nonce, sha256Hex) });
    await store.append({ kind: "approve", actor: "bench", payload: {
      plan_id: plan, steps, method: "passkey", approver: "bench key",
      passkey: { credential_id: a.id, authenticator_data: a.response.authenticatorData, client_data_json: a.response.clientDataJSON, signature: a.response.signature, nonce, rp_id: rp.id, origin: rp.origin, user_verified: true },
    } });
  }
  const entries = store.query({ limit: 10_000 });
  store.close();
  const cpu = process.cpuUsage();
  const t = performance.now();
  const checked = await checkPasskeyApprovals(entries, offlineAssertionVerifier(), sha256Hex);
  const passkeyS = (performance.now() - t) / 1000;
  const used = process.cpuUsage(cpu);
  if (checked.fault !== null || checked.approvals.length !== N) throw new Error(`expected ${N} verified approvals: ${JSON.stringify(checked.fault)}`);
  const t2 = performance.now();
  const full = await verifyAuditDb(join(dir, "audit.db"), { trusted: Ed25519Signer.open(dir).knownPublicKeys(), workers: 0 });
  const fullS = (performance.now() - t2) / 1000;
  if (full.status !== "intact" || full.passkey_approvals?.length !== N) throw new Error(`full verify: ${JSON.stringify(full).slice(0, 300)}`);
  console.log(JSON.stringify({
    approvals: N, passkey_check_s: +passkeyS.toFixed(3), per_approval_ms: +((passkeyS * 1000) / N).toFixed(3), cpu_s: +((used.user + used.system) / 1e6).toFixed(3),
    full_verify_s: +fullS.toFixed(3), target_s: 1, within_target: passkeyS <= 1, loadavg_1m: +loadavg()[0]!.toFixed(2),
  }));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
