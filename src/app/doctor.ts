import type { DoctorResult } from "../ipc/protocol.ts";
import type { DaemonDeps } from "./deps.ts";

type Check = DoctorResult["checks"][number];

/**
 * `doctor`: what a user checks first when something does not work: the daemon and host, the planner, the
 * systemd backend selection, the state store and the audit chain (a quick hash-only verification since the
 * last checkpoint). Read-only; each check says ok, warn or fail with a line of detail.
 */
export async function doctor(deps: DaemonDeps): Promise<DoctorResult> {
  const checks: Check[] = [];
  const guard = async (name: string, fn: () => Promise<Check> | Check): Promise<void> => {
    try {
      checks.push(await fn());
    } catch (err) {
      checks.push({ name, status: "fail", detail: (err as Error).message });
    }
  };
  checks.push({ name: "daemon", status: "ok", detail: `${deps.facts.mode ?? "daemon"} on ${deps.hostname} (${deps.ctx.family} family), pid ${deps.facts.pid ?? "?"}` });
  checks.push(deps.facts.mode === "embedded daemon"
    ? { name: "approval separation", status: "warn", detail: "embedded daemon: its admin socket belongs to your user, so any process running as you (an assistant with a shell included) could reach it and approve. For real separation run `hostgate daemon` as another user and point clients at its agent socket." }
    : { name: "approval separation", status: "ok", detail: "system daemon: receipts are minted only on its admin socket (mode 0600, the daemon's user)" });
  checks.push({ name: "planner", status: "ok", detail: deps.llm ? `llm (${deps.llm.name}); proposals are validated against the catalogue` : "deterministic rules over the catalogue" });
  checks.push({ name: "systemd backend", status: deps.facts.backend_warning ? "warn" : "ok", detail: deps.facts.backend ?? "unknown" });
  await guard("state store", () => {
    const recent = deps.transactions().list({ limit: 1000 });
    const unknown = recent.filter((t) => t.state === "unknown").length;
    return { name: "state store", status: unknown > 0 ? "warn" : "ok", detail: `${deps.facts.state_dir ?? "?"}: ${recent.length} recent transactions${unknown ? `, ${unknown} with unknown outcome (daemon stopped mid-step)` : ""}` };
  });
  await guard("audit chain", async () => {
    const cp = deps.audit().latestCheckpoint();
    const result = await deps.audit().verify({ signatures: false, ...(cp ? { since_seq: cp.seq } : {}) });
    const status = result.status === "intact" ? "ok" : result.status === "unanchored" ? "warn" : "fail";
    const why = result.status === "unanchored" ? `: ${result.detail}` : "";
    return { name: "audit chain", status, detail: `${result.status}${cp ? ` since checkpoint seq ${cp.seq}` : ""} (hash-only quick check; audit_verify checks signatures)${why}` };
  });
  checks.push(auditAnchoring(deps.facts));
  if (deps.hostsFeature) {
    const hosts = deps.hostsFeature;
    await guard("hosts", async () => {
      const found = (await hosts()).doctor();
      for (const f of found.slice(0, -1)) checks.push({ name: `hosts: ${f.check}`, status: f.level, detail: f.message });
      const last = found[found.length - 1]!;
      return { name: `hosts: ${last.check}`, status: last.level, detail: last.message };
    });
  }
  return { checks };
}

/**
 * Whether the audit chain's end can be proven from outside the state directory (issue 12): the public key
 * pinned in the configuration directory, and a checkpoint copy outside the state directory that the daemon's
 * user cannot rewrite (append-only for the system daemon). From the facts compose recorded at opening the store.
 */
function auditAnchoring(facts: Record<string, string>): Check {
  const problems: string[] = [];
  const pin = facts.audit_key_pin;
  if (pin === undefined) return { name: "audit anchoring", status: "warn", detail: "the audit store is not open yet (it opens at the first plan)" };
  if (pin.startsWith("not pinned")) problems.push(`public key ${pin}`);
  const copy = facts.checkpoint_copy;
  if (copy === undefined) problems.push("no checkpoint copy outside the state directory (audit.checkpoint_copy): the newest entries could be cut without trace");
  else if (facts.checkpoint_copy_protection?.startsWith("NOT") === true) problems.push(`checkpoint copy ${copy} ${facts.checkpoint_copy_protection}; the daemon's user could rewrite it`);
  if (problems.length > 0) return { name: "audit anchoring", status: "warn", detail: problems.join("; ") };
  return { name: "audit anchoring", status: "ok", detail: `key pinned at ${pin}; checkpoints copied to ${copy}${facts.checkpoint_copy_protection ? ` (${facts.checkpoint_copy_protection})` : ""}` };
}
