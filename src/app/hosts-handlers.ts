import type { ActionContext, RemoteHost, RemoteJudgement } from "../core/catalogue/action.ts";
import { actorOf, type Caller } from "../core/caller.ts";
import { HostgateError } from "../core/errors.ts";
import { HOST_ID_PATTERN, HOST_NAME_RULE, LOCAL_HOST } from "../core/host-id.ts";
import type { HostRecord } from "../core/inventory/record.ts";
import { shellJoin } from "../core/inventory/target.ts";
import { execPolicyRequest, type PolicyPrincipal } from "../core/policy/exec-request.ts";
import { judge } from "../core/policy/gate.ts";
import type { ExecOnHostAnswer } from "../ipc/hosts.ts";
import type { PlanResult } from "../ipc/protocol.ts";
import type { Handlers } from "../ipc/dispatch.ts";
import type { DaemonDeps, HostsFeature } from "./deps.ts";
import type { PolicyDecision } from "../core/policy/decision.ts";
import type { RiskAssessment } from "../core/risk/index.ts";
import { execOnHost, LOCAL_RECORD, sandboxTarget } from "./exec-on-host.ts";
import type { RemoteContext, RemoteContextFactory, RemoteSource } from "./hosts.ts";
import { hostDetails } from "./host-details.ts";
import { plan } from "./plan.ts";

/**
 * The daemon's handlers for the hosts toolset (search_hosts, list_backends, get_host_details, exec_on_host),
 * the approval path of exec_on_host (a command that needs a human approval is planned as a RunCommand step on
 * the host itself, through the host registry, so the receipt is bound to that host through the preview_hash),
 * and the registry's source of inventory hosts ({@link remoteSource}).
 */

/** The principal RunCommand previews are judged for: fixed, because execute recomputes the preview whoever calls. */
const APPROVAL_PRINCIPAL: PolicyPrincipal = { role: "operator", client: "hostgate-approval", uid: null };

/** How RunCommand judges a command for `r`: the same gate as exec_on_host, for the fixed approval principal. */
async function judgeFor(f: HostsFeature, r: HostRecord, command: string, shell: "sh" | "bash"): Promise<RemoteJudgement> {
  const a = (await f.engine).assess(command, { interpreter: shell });
  const g = judge(a, f.policy, execPolicyRequest(a, command, shell, APPROVAL_PRINCIPAL, r), f.settings);
  return { decision: g.decision, risk_level: g.risk_level, signals: a.signals.map((s) => ({ id: s.id, reason: s.reason })), reasons: g.reasons };
}

/** RunCommand's view of an SSH host: an approved command runs as the login (root where configured), unconfined. */
function remoteHost(f: HostsFeature, r: HostRecord): RemoteHost {
  const ssh = r.ssh!;
  return {
    name: r.name,
    address: ssh.host,
    port: ssh.port,
    user: ssh.user ?? f.default_user,
    machine: r.machine && r.machine.name !== r.name ? r.machine.name : null,
    provider: r.provider,
    judge: (command, shell) => judgeFor(f, r, command, shell),
    run: (command, shell, timeoutSec) => f.executor.exec({
      target: { host: ssh.host, port: ssh.port, user: ssh.user, identity_files: ssh.identity_files },
      command: `exec ${shellJoin([shell, "-c", command])}`,
      timeout_ms: timeoutSec * 1000,
      max_output_bytes: f.settings.max_output_bytes,
    }),
  };
}

/**
 * RunCommand's view of the daemon's own host (`local`), set on the local ActionContext by the composition root:
 * the hosts feature loads on first use; an approved command runs as the daemon's user, unconfined, through the
 * local executor. Policies see it as LOCAL_RECORD (`resource.backend == "local"`).
 */
export function localCommandHost(feature: () => Promise<HostsFeature>): RemoteHost {
  return {
    name: LOCAL_HOST,
    address: LOCAL_RECORD.primary_ip,
    port: null,
    user: null,
    machine: null,
    provider: "local",
    judge: async (command, shell) => judgeFor(await feature(), LOCAL_RECORD, command, shell),
    run: async (command, shell, timeoutSec) => {
      const f = await feature();
      return f.local.exec({ target: { host: "localhost", port: 0 }, command: `exec ${shellJoin([shell, "-c", command])}`, timeout_ms: timeoutSec * 1000, max_output_bytes: f.settings.max_output_bytes });
    },
  };
}

/**
 * Ports of a context that lacks a capability (core/catalogue/needs.ts): the query and plan paths refuse an action
 * whose needs the context does not declare before any port is touched, so these are never reached; if one were,
 * it fails instead of acting on another host.
 */
function absent(host: string): object {
  const fail = (): Promise<never> => Promise.reject(new HostgateError("unavailable", `${host}: this port is not offered by the host's context`));
  return new Proxy({}, { get: (_t, prop) => (prop === "then" ? undefined : fail) });
}

/**
 * How long the registry keeps an exec-only fallback context (a host reached whose typed ports could not be
 * built) before trying the full context again, in milliseconds.
 */
export const EXEC_ONLY_RETRY_MS = 60_000;

/**
 * The source of inventory hosts for the host registry (app/hosts.ts): exec_on_host's resolution, and a
 * context per host from `factory` (the SSH ports) with RunCommand's `remote` (the `exec` capability) added.
 * Without a factory a host offers `exec` alone: approved commands, nothing typed; so does a host whose typed
 * ports fail to build with `unavailable` (reached, but e.g. no SFTP subsystem): refusals quote why.
 */
export function remoteSource(feature: () => Promise<HostsFeature>, base: ActionContext, factory: RemoteContextFactory | null): () => Promise<RemoteSource> {
  return async () => {
    const f = await feature();
    return {
      resolve: (name) => f.inventory.resolveTarget(name),
      build: async (rec, signal) => {
        if (rec.name === LOCAL_HOST || !HOST_ID_PATTERN.test(rec.name)) {
          throw new HostgateError("invalid_target", `${JSON.stringify(rec.name)} cannot be a host id`, { hint: `Give the host another inventory name (not local); ${HOST_NAME_RULE}.` });
        }
        const remote = remoteHost(f, rec);
        const execOnly = (note?: string): RemoteContext => {
          const ports = absent(rec.name);
          const ctx: ActionContext = { ...base, family: "other", capabilities: ["exec"], host: ports as ActionContext["host"], units: ports as ActionContext["units"], mutator: ports as ActionContext["mutator"], remote, ...(note ? { capabilities_note: note } : {}) };
          // A fallback (typed ports failed to build) is tried again after a while; without a factory it is final.
          return { ctx, hostname: rec.name, ...(note ? { retry_after_ms: EXEC_ONLY_RETRY_MS } : {}) };
        };
        if (!factory) return execOnly();
        let rc: RemoteContext;
        try {
          rc = await factory(rec, signal);
        } catch (err) {
          // Reached, but its typed ports cannot be built there (no SFTP subsystem, …): approved commands still run.
          // Dial and host-key errors pass through (nothing would run there either).
          if (err instanceof HostgateError && err.code === "unavailable" && !signal?.aborted) return execOnly(`Its typed ports could not be built: ${err.message}${err.hint ? ` (${err.hint})` : ""}`);
          throw err;
        }
        const offered = rc.ctx.capabilities ?? ["files", "systemd", "mutate"];
        return { ...rc, ctx: { ...rc.ctx, remote, capabilities: [...offered.filter((c) => c !== "exec"), "exec"] } };
      },
    };
  };
}

function feature(d: DaemonDeps): Promise<HostsFeature> {
  if (!d.hostsFeature) return Promise.reject(new HostgateError("unavailable", "the hosts feature is not composed in this daemon"));
  return d.hostsFeature();
}

/** The four handlers of the hosts toolset. */
export function hostsHandlers(d: DaemonDeps): Pick<Handlers, "search_hosts" | "list_backends" | "get_host_details" | "exec_on_host"> {
  return {
    search_hosts: async (p) => (await feature(d)).inventory.search(p),
    list_backends: async () => (await feature(d)).inventory.listBackends(),
    get_host_details: async (p, caller) => {
      const f = await feature(d);
      const who: PolicyPrincipal = { role: caller.role, client: caller.client_name ?? "", uid: caller.peer?.uid ?? null };
      return hostDetails(p, {
        inventory: f.inventory, executor: f.executor, audit: d.audit(), actor: actorOf(caller),
        sandboxOf: async (r) => f.sandboxes.forHost(await sandboxTarget(r, f)),
        judge: async (rec, command) => {
          const a = (await f.engine).assess(command, { interpreter: "sh" });
          return judge(a, f.policy, execPolicyRequest(a, command, "sh", who, rec), f.settings);
        },
      });
    },
    exec_on_host: async (p, caller: Caller, signal?: AbortSignal): Promise<ExecOnHostAnswer> => {
      const f = await feature(d);
      const started = Date.now();
      const who = { role: caller.role, client: caller.client_name ?? "", uid: caller.peer?.uid ?? null, actor: actorOf(caller) };
      const r = await execOnHost(p, who, {
        engine: f.engine,
        policy: f.policy,
        inventory: f.inventory,
        executor: f.executor,
        local: f.local,
        sandboxes: f.sandboxes,
        slots: f.slots,
        audit: d.audit(),
        settings: f.settings,
        tracer: d.tracer,
        requestApproval: async (req) => {
          const records = await Promise.all(req.hosts.map((h) => (h === LOCAL_HOST ? Promise.resolve(LOCAL_RECORD) : f.inventory.resolveTarget(h))));
          // One plan over every host (one approval, one receipt), host by host in request order.
          const planned: PlanResult[] = [];
          for (const rec of records) {
            const join = planned.length === 0 ? undefined : { id: planned[0]!.plan_id, after: planned.length };
            planned.push(await plan(d, { host: rec.name, steps: [{ action: "RunCommand", params: { command: req.command, shell: req.shell, timeout_sec: req.timeout_sec } }] }, caller, { judged: true, ...(join ? { join } : {}) }));
          }
          const merged: PlanResult = { ...planned[planned.length - 1]!, steps: planned.flatMap((x) => x.steps) };
          return { transaction_id: merged.steps[0]!.transaction_id, preview_hash: merged.steps[0]!.preview_hash, plan: merged };
        },
      }, signal);
      if ("approval" in r) return { results: [], groups: [], decision: r.decision, plan: r.approval.plan as PlanResult, meta: null };
      const { redactions, ...out } = r;
      // Provenance of the output, as every read-only answer carries it (the front moves it into `_meta`).
      const first = p.host ?? p.hosts![0]!;
      const meta = { host: first, hostname: first, action: "exec_on_host", at: new Date(started).toISOString(), duration_ms: Date.now() - started, untrusted: true, redactions, ...(p.hosts ? { hosts: p.hosts } : {}) };
      return { ...out, plan: null, meta };
    },
  };
}

/**
 * plan_command with `target`: exec_on_host's decision for that host without connecting (the same gate; the
 * caller's role, client name and uid are the principal). `source` is `cedar`, or `no_policy` when none is
 * configured (then everything is refused unless exec.allow_unverified).
 */
export async function execDecisionFor(d: DaemonDeps, a: RiskAssessment, command: string, shell: string, target: string, caller: Caller | null): Promise<PolicyDecision> {
  const f = await feature(d);
  const rec = await f.inventory.resolveTarget(target);
  const who: PolicyPrincipal = { role: caller?.role ?? "observer", client: caller?.client_name ?? "", uid: caller?.peer?.uid ?? null };
  const g = judge(a, f.policy, execPolicyRequest(a, command, shell, who, rec), f.settings);
  return { decision: g.decision, reasons: g.reasons, source: g.policy.source === "none" ? "no_policy" : g.policy.source };
}
