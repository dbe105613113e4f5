import { HostgateError, toHostgateError, describeIssues } from "../core/errors.ts";
import { staticCapabilities, type Capability, type HostRecord } from "../core/inventory/record.ts";
import type { GateDecision } from "../core/policy/gate.ts";
import { describeSandbox, type HostSandbox } from "../core/sandbox/confine.ts";
import type { AuditStore } from "../ports/audit-store.ts";
import type { Executor } from "../ports/executor.ts";
import { GetHostDetailsInputSchema } from "../ipc/hosts.ts";
import { audit } from "./audit-log.ts";
import type { Inventory } from "./inventory.ts";

/**
 * get_host_details: one host's record and capabilities. `ssh` and `docker_exec` follow from the record;
 * with `probe: true` the daemon connects (host key checked as for exec) and runs one fixed, read-only probe —
 * never a command from the caller — to add `systemd` (/run/systemd/system exists) and `hostgate_daemon`
 * (a hostgate agent socket answers to `test -S`), and, given `sandboxOf`, how the host confines commands that
 * run without approval and as whom (app/sandbox.ts; `probe.sandbox`: the summary, then "commands run as" and
 * the identity, which says when a non-root login cannot have a uid of its own per run). The probe runs a command on the host, so it is
 * judged like any exec (issue 21): the risk engine and the policy, for the machine the record is (`judge`);
 * anything but `allow` leaves it unrun with the reason in `probe.error`. The decision and the probe are
 * audited. The record's `tags` are the machine's, as policies see them; `meta.machine` names the inventory
 * entry whose tags they are when that is another entry (core/inventory/identity.ts); `meta.errors` says why
 * the host cannot be reached (ProxyCommand, an unreadable Include, a tag collision).
 */
const PROBE = "test -d /run/systemd/system && echo systemd; for s in /run/hostgate/agent.sock \"$XDG_RUNTIME_DIR/hostgate/agent.sock\"; do test -S \"$s\" && { echo hostgate_daemon; break; }; done; true";

/** Judges one command on one resolved record, as exec_on_host does (risk engine + policy gate). */
export type ProbeJudge = (record: HostRecord, command: string) => Promise<GateDecision>;

export async function hostDetails(input: unknown, deps: { inventory: Inventory; executor: Executor; audit: AuditStore; actor: string; judge: ProbeJudge; sandboxOf?: (r: HostRecord) => Promise<HostSandbox> }): Promise<{
  record: { name: string; primary_ip: string; provider: "static" | "ssh_config" | "known_hosts" | "docker"; backend: string; meta: Record<string, string>; tags: string[] };
  ssh: { host: string; port: number; user: string | null; proxy_jump: string[] } | null;
  capabilities: Capability[];
  probe: { ran: boolean; error: string | null; sandbox: string | null };
}> {
  const parsed = GetHostDetailsInputSchema.safeParse(input);
  if (!parsed.success) throw new HostgateError("invalid_params", `get_host_details: ${describeIssues(parsed.error, "input")}`, { hint: "Pass { name, provider?, probe? }." });
  const { name, provider, probe } = parsed.data;
  const { record: listed, errors } = await deps.inventory.find(name, provider);
  if (!listed) {
    throw new HostgateError("not_found", `no backend lists a host named ${JSON.stringify(name)}${provider ? ` in ${provider}` : ""}`, {
      hint: `Use search_hosts to find names.${errors.length > 0 ? ` Backends that failed: ${errors.join("; ")}` : ""}`,
    });
  }
  let record: HostRecord = listed;
  let unreachable: string | null = listed.ssh?.refusal ? `${listed.ssh.refusal.message} (${listed.ssh.refusal.hint})` : null;
  if (listed.ssh && !unreachable) {
    try {
      record = await deps.inventory.identifyRecord(listed);
    } catch (e) {
      const h = toHostgateError(e);
      unreachable = `${h.code}: ${h.message}`;
    }
  }
  const meta = { ...record.meta };
  if (record.machine && (record.machine.name !== record.name || record.machine.backend !== record.backend)) meta.machine = `${record.machine.name} (${record.machine.backend})`;
  if (unreachable && !meta.errors) meta.errors = unreachable;
  const caps = staticCapabilities(record).filter((c) => c !== "ssh" || !unreachable);
  let probed: { ran: boolean; error: string | null; sandbox: string | null } = { ran: false, error: null, sandbox: null };
  if (probe && record.ssh && unreachable) probed = { ran: false, error: unreachable, sandbox: null };
  else if (probe && record.ssh) {
    const d = await deps.judge(record, PROBE);
    await audit(deps.audit, "host.probe", deps.actor, {
      host: record.name, address: record.ssh.host, port: record.ssh.port, command: PROBE,
      machine: record.machine ? record.machine.name : record.name, decision: d.decision, reasons: d.reasons,
    }, true);
    if (d.decision !== "allow") probed = { ran: false, error: `refused (${d.decision}): ${d.reasons.join("; ")}`, sandbox: null };
    else {
      try {
        const jumps = await deps.inventory.jumpsFor(record);
        const r = await deps.executor.exec({ target: { host: record.ssh.host, port: record.ssh.port, user: record.ssh.user, identity_files: record.ssh.identity_files }, jumps, command: `sh -c '${PROBE.replace(/'/g, `'\\''`)}'`, timeout_ms: 10_000, max_output_bytes: 1024 });
        const words = r.stdout.split("\n");
        if (words.includes("systemd")) caps.push("systemd");
        if (words.includes("hostgate_daemon")) caps.push("hostgate_daemon");
        const sb = deps.sandboxOf ? await deps.sandboxOf(record).then(describeSandbox, (e: unknown) => `probe failed: ${toHostgateError(e).message}`) : null;
        probed = { ran: true, error: r.error, sandbox: sb };
      } catch (e) {
        const h = toHostgateError(e);
        probed = { ran: false, error: `${h.code}: ${h.message}`, sandbox: null };
      }
    }
  }
  const { ssh } = record;
  return {
    record: { name: record.name, primary_ip: record.primary_ip, provider: record.provider, backend: record.backend, meta, tags: record.tags },
    ssh: ssh ? { host: ssh.host, port: ssh.port, user: ssh.user ?? null, proxy_jump: ssh.proxy_jump } : null,
    capabilities: caps,
    probe: probed,
  };
}
