import type { HostRecord } from "../core/inventory/record.ts";
import { actorOf, type Caller } from "../core/caller.ts";
import { errorBody, HostgateError, type ErrorCode } from "../core/errors.ts";
import { HOST_ID_PATTERN, LOCAL_HOST } from "../core/host-id.ts";
import { assertSupported } from "../core/catalogue/needs.ts";
import { redactDeep } from "../core/redact.ts";
import { parseUnitUri, splitHostUnitUri } from "../core/systemd/uri.ts";
import { readUnitResource } from "./unit-resources.ts";
import { canonicalJson, type JsonValue } from "../core/audit/canonical.ts";
import { assertReadAllowed, readPolicyRequest } from "../core/policy/read-request.ts";
import type { FanOutData, QueryValue, ResourceContents } from "../ipc/protocol.ts";
import { audit } from "./audit-log.ts";
import type { DaemonDeps } from "./deps.ts";
import type { HostEntry } from "./hosts.ts";
import { queryAction } from "./query.ts";

/** Hosts asked at once by a fan-out when the hosts feature does not say (exec.fanout_concurrency). */
const DEFAULT_CONCURRENCY = 8;
/** A host that has not answered (resolution, dial, action) within this many ms is reported as `timeout`. */
export const HOST_TIMEOUT_MS = 25_000;

/** What the query method is asked (ipc/protocol.ts QueryParamsSchema). */
export interface QueryRequest {
  action: string;
  args: unknown;
  host?: string | undefined;
  hosts?: string[] | undefined;
}

const REFUSALS = new Set(["not_read_only", "unknown_action", "insufficient_role", "unknown_host", "refused", "unavailable", "invalid_params"]);

/** What a fan-out learns of one host's read permit, for its one audit entry (instead of one `query.remote` each). */
export interface ReadPermit {
  machine: string;
  policies: JsonValue;
}

/**
 * The entry of a host for a read, gated: `local` as registered; any other host through the registry
 * (resolved as exec_on_host resolves it, context built on first use) and the policy's `read` permit for that
 * machine and caller (deny by default, core/policy/read-request.ts). `permit`: see {@link readGate}.
 */
async function gatedEntry(d: DaemonDeps, action: string, hostId: string, caller: Caller, signal?: AbortSignal, permit?: (p: ReadPermit) => void): Promise<HostEntry> {
  return d.hosts.resolve(hostId, signal, readGate(d, action, hostId, caller, permit));
}

/**
 * The gate a remote host's record passes before its context is built (and so before it is dialed): the policy's
 * `read` permit for `action` on that machine and caller, audited `query.remote` — or, with `permit`, handed to it
 * instead (a fan-out audits all its hosts in one entry). Used by reads and by `plan`
 * (a preview reads the host's current state: a plan on a host the caller may not read is refused before
 * anything connects, so `plan` is no probe of arbitrary addresses). Throws HostgateError `refused`/`unavailable`.
 */
export function readGate(d: DaemonDeps, action: string, hostId: string, caller: Caller, permit?: (p: ReadPermit) => void): (record: HostRecord) => Promise<void> {
  return async (record) => {
    if (!d.hostsFeature) throw new HostgateError("unavailable", "the hosts feature is not composed in this daemon");
    const f = await d.hostsFeature();
    const who = { role: caller.role, client: caller.client_name ?? "", uid: caller.peer?.uid ?? null };
    const verdict = assertReadAllowed(f.policy, readPolicyRequest(action, who, record));
    const machine = record.machine?.name ?? hostId;
    if (permit) permit({ machine, policies: verdict.policies });
    else await audit(d.audit(), "query.remote", actorOf(caller), { action, host: hostId, machine, policies: verdict.policies }).catch(() => undefined);
  };
}

/**
 * One host's answer: the query path (app/query.ts: caps, params, redaction, 1 MiB), its errors thrown. A refusal
 * is audited `query.refused` here, unless `permit` is given (a fan-out: its one entry records every outcome).
 */
async function oneHost(d: DaemonDeps, p: QueryRequest, hostId: string, caller: Caller, signal?: AbortSignal, permit?: (p: ReadPermit) => void): Promise<QueryValue> {
  const refused = async (code: string): Promise<void> => {
    if (!permit && REFUSALS.has(code)) await audit(d.audit(), "query.refused", actorOf(caller), { action: p.action, host: hostId, code }).catch(() => undefined);
  };
  let r;
  try {
    r = await queryAction(p.action, p.args, await gatedEntry(d, p.action, hostId, caller, signal, permit), d.catalogue, caller.role);
  } catch (err) {
    await refused(err instanceof HostgateError ? err.code : "internal_error");
    throw d.hosts.failed(hostId, err);
  }
  if (!r.ok) {
    await refused(r.error.code);
    const err = new HostgateError(r.error.code as ErrorCode, r.error.message, { ...(r.error.hint ? { hint: r.error.hint } : {}), ...(r.error.details ? { details: r.error.details } : {}) });
    throw d.hosts.failed(hostId, err);
  }
  return r.value;
}

/**
 * Before a fan-out dials anything: the action must be a read-only action of the catalogue (of any distro family:
 * whether a host's family offers it is that host's answer). Throws `unknown_action` / `not_read_only` once, for
 * the whole call, instead of once per host after each was resolved and asked.
 */
function checkFanOutAction(d: DaemonDeps, name: string): void {
  const found = d.catalogue.filter((a) => a.name === name);
  if (found.length === 0) throw new HostgateError("unknown_action", `No action named ${name} is offered by this daemon.`, { hint: "Name a read-only tool from tools/list, e.g. get_disk_usage." });
  if (found.every((a) => a.access !== "read_only")) throw new HostgateError("not_read_only", `${name} changes the host and cannot run as a query.`, { hint: "Propose it with plan; a human approves it with `hostgate approve <plan_id>` before execute." });
}

/** `promise`, or a `timeout` error after `ms`. */
function bounded<T>(promise: Promise<T>, ms: number, host: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => { reject(new HostgateError("timeout", `${host} did not answer within ${Math.round(ms / 1000)} s.`, { hint: "The other hosts' answers are given; retry this host alone, or check it with get_host_details." })); }, ms);
  });
  return Promise.race([promise, late]).finally(() => { clearTimeout(timer); });
}

/**
 * The daemon's `query` method: one read-only action on one host, or fanned out to `hosts` — at most
 * `concurrency` at once, each bounded by `timeout_ms`; identical (redacted) answers grouped with their hosts,
 * each failing host reported beside them with its error. Provenance names the host (`hosts` for a fan-out).
 */
export async function queryHosts(d: DaemonDeps, p: QueryRequest, caller: Caller, signal?: AbortSignal, opts: { concurrency?: number; timeout_ms?: number } = {}): Promise<QueryValue> {
  if (!p.hosts) return oneHost(d, p, p.host ?? LOCAL_HOST, caller, signal);
  try {
    checkFanOutAction(d, p.action);
  } catch (err) {
    await audit(d.audit(), "query.refused", actorOf(caller), { action: p.action, hosts: p.hosts, code: (err as HostgateError).code }).catch(() => undefined);
    throw err;
  }
  const started = Date.now();
  const hosts = [...new Set(p.hosts)];
  const concurrency = opts.concurrency ?? (d.hostsFeature ? (await d.hostsFeature()).settings.fanout_concurrency : DEFAULT_CONCURRENCY);
  const timeout = opts.timeout_ms ?? HOST_TIMEOUT_MS;
  type Answer = { ok: true; value: QueryValue } | { ok: false; error: ReturnType<typeof errorBody> };
  const results: Answer[] = [];
  const permits: (ReadPermit | undefined)[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < hosts.length) {
      const i = next++;
      try {
        results[i] = { ok: true, value: await bounded(oneHost(d, p, hosts[i]!, caller, signal, (x) => { permits[i] = x; }), timeout, hosts[i]!) };
      } catch (err) {
        results[i] = { ok: false, error: errorBody(err) };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, hosts.length) }, worker));
  const groups = new Map<string, FanOutData["groups"][number]>();
  const errors: FanOutData["errors"] = [];
  let redactions = 0;
  let untrusted = false;
  // Each answer's canonical JSON, computed once: it groups identical answers and is what the audit entry hashes.
  const keys = results.map((r) => (r.ok ? canonicalJson(r.value.data) : null));
  results.forEach((r, i) => {
    if (!r.ok) {
      errors.push({ host: hosts[i]!, code: r.error.code, message: r.error.message, ...(r.error.hint ? { hint: r.error.hint } : {}) });
      return;
    }
    redactions += r.value.meta.redactions;
    untrusted ||= r.value.meta.untrusted;
    const key = keys[i]!;
    const g = groups.get(key);
    if (g) g.hosts.push(hosts[i]!);
    else groups.set(key, { hosts: [hosts[i]!], data: r.value.data });
  });
  const data: FanOutData = { groups: [...groups.values()], errors };
  // One entry for the whole fan-out (issue 20): the hosts, and per host its machine, the deciding policies and its
  // outcome (`ok` with the SHA-256 of its canonical answer, or the error code). Reads are not fail-closed.
  const digests = new Map<string, string>();
  const hash = d.hosts.get().ctx.hash;
  const outcomes = results.map((r, i): JsonValue => {
    const given = permits[i];
    const permit: Record<string, JsonValue> = given ? { machine: given.machine, policies: given.policies } : {};
    if (!r.ok) return { host: hosts[i]!, ...permit, outcome: r.error.code };
    const key = keys[i]!;
    let sha = digests.get(key);
    if (sha === undefined) digests.set(key, (sha = hash.sha256Hex(key)));
    return { host: hosts[i]!, ...permit, outcome: "ok", answer_sha256: sha };
  });
  await audit(d.audit(), "query.fanout", actorOf(caller), { action: p.action, hosts, outcomes }).catch(() => undefined);
  return {
    data,
    meta: { host: hosts[0]!, hostname: hosts[0]!, hosts, action: p.action, at: new Date(started).toISOString(), duration_ms: Date.now() - started, untrusted: untrusted || errors.length > 0, redactions },
  };
}

/**
 * `resources/read` of a unit on an inventory host (`systemd://host/<host>/system/...`): the same read policy
 * as a direct tool (action `ReadUnit`, or `ReadUnitDefinition` for `/definition`), the host must offer systemd,
 * and the text is redacted before it leaves the daemon. Any other URI goes to the resource registry as before.
 */
export async function readResource(d: DaemonDeps, uri: string, caller: Caller, signal?: AbortSignal): Promise<ResourceContents> {
  const split = splitHostUnitUri(uri, HOST_ID_PATTERN);
  if (split.host === null) return d.resources.read(uri);
  if (split.host === LOCAL_HOST) return { ...(await d.resources.read(split.uri)), uri };
  const action = split.uri.endsWith("/definition") ? "ReadUnitDefinition" : "ReadUnit";
  parseUnitUri(split.uri);
  try {
    const entry = await gatedEntry(d, action, split.host, caller, signal);
    assertSupported({ name: action, needs: ["systemd"], access: "read_only" }, entry.ctx, entry.id);
    const contents = await readUnitResource(split.uri, entry.ctx.units);
    return { ...contents, uri, text: redactDeep(contents.text).value };
  } catch (err) {
    const code = err instanceof HostgateError ? err.code : "internal_error";
    if (REFUSALS.has(code)) await audit(d.audit(), "query.refused", actorOf(caller), { action, host: split.host, code }).catch(() => undefined);
    throw d.hosts.failed(split.host, err);
  }
}
