import type { DoctorResult } from "../ipc/protocol.ts";
import type { Caller } from "../core/caller.ts";
import type { DaemonDeps } from "./deps.ts";
import { DEFAULT_EXPOSURE } from "./exposure.ts";
import { hostSystemdDetail, hostSystemdViews } from "./host-systemd.ts";
import { exposureOf } from "../core/toolsets.ts";
import { METHODS, type MethodDef } from "../ipc/methods.ts";

type Check = DoctorResult["checks"][number];

/**
 * `doctor`: what a user checks first when something does not work: the daemon and host, the planner, the
 * systemd backend selection, the systemd path of each contacted inventory host (no host is dialled), the state store and the audit chain (a quick hash-only verification since the
 * last checkpoint). Read-only; each check says ok, warn or fail with a line of detail.
 */
export async function doctor(deps: DaemonDeps, caller: Caller): Promise<DoctorResult> {
  const checks: Check[] = [];
  const guard = async (name: string, fn: () => Promise<Check> | Check): Promise<void> => {
    try {
      checks.push(await fn());
    } catch (err) {
      checks.push({ name, status: "fail", detail: (err as Error).message });
    }
  };
  checks.push({ name: "daemon", status: "ok", detail: `${deps.facts.mode ?? "daemon"} on ${deps.hostname} (${deps.ctx.family} family), pid ${deps.facts.pid ?? "?"}` });
  const groups = caller.socket === "in_process" || caller.peer === null ? null : await deps.groupsOf(caller.peer.pid);
  checks.push(separationCheck(deps.facts, caller, groups));
  checks.push({ name: "planner", status: "ok", detail: deps.llm ? `llm (${deps.llm.name}); proposals are validated against the catalogue` : "deterministic rules over the catalogue" });
  checks.push({ name: "systemd backend", status: deps.facts.backend_warning ? "warn" : "ok", detail: deps.facts.backend ?? "unknown" });
  checks.push(exposureCheck(deps));
  checks.push({ name: "remote systemd", status: "ok", detail: hostSystemdDetail(hostSystemdViews(deps.hosts.built())) });
  await guard("state store", () => {
    const recent = deps.transactions().list({ limit: 1000 });
    const unknown = recent.filter((t) => t.state === "unknown").length;
    return { name: "state store", status: unknown > 0 ? "warn" : "ok", detail: `${deps.facts.state_dir ?? "?"}: ${recent.length} recent transactions${unknown ? `, ${unknown} with unknown outcome (daemon stopped mid-step)` : ""}` };
  });
  let unanchored: string | null = null;
  await guard("audit chain", async () => {
    const cp = deps.audit().latestCheckpoint();
    const result = await deps.audit().verify({ signatures: false, ...(cp ? { since_seq: cp.seq } : {}) });
    // An unanchored chain is intact as far as its hashes go; what it lacks is the anchoring, which the "audit
    // anchoring" check warns about, once (issue 22: doctor printed the same warning twice).
    if (result.status === "unanchored") unanchored = result.detail;
    const status = result.status === "intact" || result.status === "unanchored" ? "ok" : "fail";
    const why = result.status === "unanchored" ? ": entries intact, not anchored (see audit anchoring)" : "";
    return { name: "audit chain", status, detail: `${result.status === "unanchored" ? "intact" : result.status}${cp ? ` since checkpoint seq ${cp.seq}` : ""} (hash-only quick check; audit_verify checks signatures)${why}` };
  });
  checks.push(auditAnchoring(deps.facts, unanchored));
  for (const feature of deps.features ?? []) {
    const findings = feature.doctor;
    if (!findings) continue;
    const label = (check: string): string => (check === feature.name ? check : `${feature.name}: ${check}`);
    await guard(feature.name, async () => {
      const found = await findings();
      for (const f of found.slice(0, -1)) checks.push({ name: label(f.check), status: f.level, detail: f.message });
      const last = found[found.length - 1]!;
      return { name: label(last.check), status: last.level, detail: last.message };
    });
  }
  return { checks };
}

/**
 * Which of the daemon's tools are off and why (issue 22): every method tool the exposure rule hides (the daemon
 * refuses it, the front does not list it), with what to write to turn it on, and the skills gates that are off.
 * Informational: `ok` whatever is off (exec_on_host is off by default).
 */
export function exposureCheck(deps: Pick<DaemonDeps, "exposure" | "skills">): Check {
  const settings = deps.exposure ?? DEFAULT_EXPOSURE;
  const off: string[] = [];
  for (const [name, def] of Object.entries(METHODS) as [string, MethodDef][]) {
    if (!def.tool) continue;
    const e = exposureOf(name, def.tool, settings);
    if (!e.offered) off.push(`${name} (${e.reason}; to offer it: ${e.fix})`);
  }
  const gates = deps.skills?.gates;
  if (gates && !gates.install.on) off.push(`skills_install_apply, skills_sync_apply (skills install gate: ${gates.install.reason})`);
  if (gates && !gates.exec.on) off.push(`skills_execute (skills exec gate: ${gates.exec.reason})`);
  return { name: "gated tools", status: "ok", detail: off.length === 0 ? "every tool is offered" : `off: ${off.join("; ")}` };
}

/**
 * Whether the audit chain's end can be proven from outside the state directory (issue 12): the public key
 * pinned in the configuration directory, and a checkpoint copy outside the state directory that the daemon's
 * user cannot rewrite (append-only for the system daemon). From the facts compose recorded at opening the store,
 * and `unanchored`: the chain check's reason when its verify answered `unanchored` (the one warning about it).
 */
function auditAnchoring(facts: Record<string, string>, unanchored: string | null = null): Check {
  const problems: string[] = unanchored === null ? [] : [`the chain is not anchored: ${unanchored}`];
  const pin = facts.audit_key_pin;
  if (pin === undefined) return { name: "audit anchoring", status: "warn", detail: "the audit store is not open yet (it opens at the first plan)" };
  if (pin.startsWith("not pinned")) problems.push(`public key ${pin}`);
  const copy = facts.checkpoint_copy;
  if (copy === undefined) problems.push("no checkpoint copy outside the state directory (audit.checkpoint_copy): the newest entries could be cut without trace");
  else if (facts.checkpoint_copy_protection?.startsWith("NOT") === true) problems.push(`checkpoint copy ${copy} ${facts.checkpoint_copy_protection}; the daemon's user could rewrite it`);
  if (problems.length > 0) return { name: "audit anchoring", status: "warn", detail: problems.join("; ") };
  return { name: "audit anchoring", status: "ok", detail: `key pinned at ${pin}; checkpoints copied to ${copy}${facts.checkpoint_copy_protection ? ` (${facts.checkpoint_copy_protection})` : ""}` };
}

/** `path uid=0 gid=0 mode=0600` (daemon/socket-facts.ts) → its numbers; null when unknown. */
function socketFact(text: string | undefined): { uid: number; gid: number; mode: number } | null {
  const m = text === undefined ? null : /uid=(\d+) gid=(\d+) mode=([0-7]+)/.exec(text);
  return m === null ? null : { uid: Number(m[1]), gid: Number(m[2]), mode: parseInt(m[3]!, 8) };
}

/**
 * Whether approvals are separated from the assistant, from facts (issue 12): the daemon's uid, the admin
 * socket's owner, group and mode as the kernel reports them, and the uid, gid and supplementary groups
 * (`groups`, from /proc/<pid>/status; null when unknown) of the front asking — the process the assistant's
 * shell runs as. Separated only when the front is not root and can open the admin socket neither as its owner,
 * nor through its primary or any supplementary group, nor through the socket's "other" bits.
 */
function separationCheck(facts: Record<string, string>, caller: Caller, groups: number[] | null): Check {
  const daemonUid = facts.daemon_uid === undefined ? null : Number(facts.daemon_uid);
  // An in-process front (embedded daemon) is the daemon's own process: the same uid.
  const front = caller.socket === "in_process" ? (daemonUid === null ? null : { uid: daemonUid, gid: -1 }) : caller.peer;
  const admin = socketFact(facts.admin_socket);
  const policy = `approval.same_user: ${facts.approval_same_user ?? "?"}`;
  const seen = `daemon uid ${daemonUid ?? "?"}; admin socket ${admin === null ? "not listening (no approvals possible here)" : `owner uid ${admin.uid}, group ${admin.gid}, mode ${admin.mode.toString(8).padStart(4, "0")}`}; front uid ${front?.uid ?? "unknown (tcp://)"}; ${policy}`;
  const route = "For separation run `hostgate daemon` as a service, give the assistant's user only the agent socket (daemon.agent_group) and approve as root at a terminal.";
  if (front === null || admin === null) return { name: "approval separation", status: "warn", detail: `cannot tell: ${seen}. ${route}` };
  const why =
    front.uid === 0 && daemonUid === 0 ? "front and daemon are both root"
    : front.uid === 0 ? "the front runs as root, which can open any socket"
    : front.uid === admin.uid ? `the front runs as uid ${front.uid}, the admin socket's owner`
    : (admin.mode & 0o006) !== 0 ? `everyone may open the admin socket (mode ${admin.mode.toString(8)})`
    : (admin.mode & 0o060) !== 0 && front.gid === admin.gid ? `the front's group ${front.gid} may open the admin socket (mode ${admin.mode.toString(8)})`
    : (admin.mode & 0o060) !== 0 && groups?.includes(admin.gid) === true ? `the front is in group ${admin.gid} (a supplementary group), which may open the admin socket (mode ${admin.mode.toString(8)})`
    : null;
  if (why === null && (admin.mode & 0o060) !== 0 && groups === null) return { name: "approval separation", status: "warn", detail: `cannot tell: the front's supplementary groups are unknown and group ${admin.gid} may open the admin socket. ${seen}. ${route}` };
  if (why !== null) return { name: "approval separation", status: "warn", detail: `none: ${why}, so an assistant with a shell could approve its own plans (labelled separation: none${facts.approval_same_user === "deny" ? "; refused by approval.same_user: deny" : ""}). ${seen}. ${route}` };
  return { name: "approval separation", status: "ok", detail: `separated: the front (uid ${front.uid}) cannot open the admin socket. ${seen}` };
}
