/**
 * Issue 20, per-host contexts and the model's view, through a composed daemon (real inventory files, real
 * cedar-wasm policies, real /var/log file, the in-process client the MCP front uses).
 *
 * The SSH context (`sshActionContext`, another branch) has not landed: the factory here builds a context from
 * this machine's LinuxHostProbe under another host id. It stands in for the SSH context until the merge; every
 * part of the path above it (resolution, cache, policy, capabilities, fan-out, redaction, audit) is the real one.
 * A changed host key cannot be produced without the SSH ports, so one stand-in host reports `host_key_mismatch`
 * from its probe when the test says so (what the SSH probe throws after a key change).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nodeCrypto } from "../../src/adapters/crypto-node.ts";
import { LinuxHostProbe } from "../../src/adapters/host-linux.ts";
import { LinuxHostMutator } from "../../src/adapters/host-mutator-linux.ts";
import { createUnavailableUnitManagers } from "../../src/adapters/systemd-unavailable.ts";
import { createMockUnitManagers } from "../../src/adapters/systemd-mock.ts";
import { HostRegistry, type RemoteContextFactory } from "../../src/app/hosts.ts";
import { ConfigSchema } from "../../src/config/schema.ts";
import type { ActionContext } from "../../src/core/catalogue/action.ts";
import { HostgateError } from "../../src/core/errors.ts";
import type { HostRecord } from "../../src/core/inventory/record.ts";
import { composeDaemon, type ComposedDaemon } from "../../src/daemon/compose.ts";
import type { FanOutData, QueryValue } from "../../src/ipc/protocol.ts";

const work = mkdtempSync(join(tmpdir(), `hg-host-ctx-${process.pid}-`));
const logDir = `/var/log/hostgate-test-hostctx-${process.pid}`;
const SECRET = "AKIAIOSFODNN7EXAMPLE";
const sshConfig = join(work, "ssh_config");
const open: ComposedDaemon[] = [];

/** What the stand-in factory saw: every build (with the record it got) and every close. */
const built: HostRecord[] = [];
const closed: string[] = [];
let keyChanged = false;

const probe = new LinuxHostProbe();
/** The stand-in for sshActionContext: this machine's probe under the inventory host's id (files only). */
const standIn: RemoteContextFactory = async (rec) => {
  built.push(rec);
  if (rec.name === "down") throw new HostgateError("unreachable", "down: connection refused");
  if (rec.name === "hang") return new Promise(() => undefined);
  const host: ActionContext["host"] = rec.name === "keyed"
    ? new Proxy(probe, { get: (t, prop) => { if (keyChanged) throw new HostgateError("host_key_mismatch", "keyed: the host key does not match known_hosts"); const v = Reflect.get(t, prop, t) as unknown; return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(t) : v; } })
    : probe;
  const ctx: ActionContext = {
    host, clock: { now: () => Date.now() }, family: "debian", units: createUnavailableUnitManagers("stand-in: no systemd"), mutator: new LinuxHostMutator(),
    hash: nodeCrypto, self_pid: process.pid, protected_paths: [], logs_readable: { kind: "all" }, capabilities: ["files"],
  };
  // "units": a host whose service manager answers (the project's mock unit manager stands in for the remote D-Bus).
  if (rec.name === "units") return { ctx: { ...ctx, units: createMockUnitManagers(), capabilities: ["files", "systemd"] }, hostname: "standin-units" };
  return { ctx, hostname: `standin-${rec.name}`, close: () => { closed.push(rec.name); } };
};

const POLICY = `@id("read-lab")\n@reason("lab hosts may be read")\npermit (principal, action == Hostgate::Action::"read", resource) when { resource.tags.contains("lab") };\n`;

async function daemon(opts: { factory?: RemoteContextFactory | null; policy?: boolean } = {}): Promise<ComposedDaemon> {
  const policies = mkdtempSync(join(work, "policies-"));
  writeFileSync(join(policies, "read.cedar"), POLICY);
  const knownHosts = join(work, "known_hosts");
  writeFileSync(knownHosts, "");
  process.env.HOSTGATE_STATE_DIR = mkdtempSync(join(work, "state-"));
  const config = ConfigSchema.parse({
    backend: { type: "mock" },
    ...(opts.policy === false ? {} : { policy: { dir: policies } }),
    exec: { known_hosts: [knownHosts], identity_files: [join(work, "no-key")], use_agent: false, user: "root" },
    inventory: {
      providers: [
        { kind: "static", name: "lab", cache_ttl: 0, tags: ["lab"], hosts: ["lab-a", "lab-b", "down", "hang", "keyed", "units"].map((name, i) => ({ name, address: `10.99.0.${i + 1}` })) },
        { kind: "static", name: "other", cache_ttl: 0, hosts: [{ name: "plain", address: "10.99.1.1" }] },
        { kind: "ssh_config", name: "moving", cache_ttl: 0, tags: ["lab"], files: [sshConfig] },
      ],
    },
  });
  const d = await composeDaemon(config, { mode: "embedded", announce: () => undefined, remoteContexts: opts.factory === null ? null : opts.factory ?? standIn });
  delete process.env.HOSTGATE_STATE_DIR;
  open.push(d);
  return d;
}

async function query(d: ComposedDaemon, params: Record<string, unknown>): Promise<QueryValue> {
  const r = await d.service.agent("host-ctx").call("query", params as never);
  if (!r.ok) throw new HostgateError(r.error.code as never, r.error.message, { ...(r.error.hint ? { hint: r.error.hint } : {}), ...(r.error.details ? { details: r.error.details } : {}) });
  return r.value;
}

const audits = (d: ComposedDaemon, kind: string): Record<string, unknown>[] => d.openStores().audit.query().filter((e) => e.kind === kind).map((e) => JSON.parse(e.payload) as Record<string, unknown>);

beforeAll(() => {
  mkdirSync(logDir, { recursive: true });
  writeFileSync(join(logDir, "app.log"), `started\naws_access_key_id = ${SECRET}\nready\n`);
  writeFileSync(sshConfig, "Host moving-1\n  HostName 10.99.2.1\n  Port 2201\n");
});
afterAll(async () => {
  for (const d of open) await d.close();
  rmSync(logDir, { recursive: true, force: true });
});

describe("per-host contexts from the inventory (HostRegistry)", () => {
  it("first use builds the context (from the resolved record), later calls reuse it; provenance names the host; the answer is redacted", async () => {
    const d = await daemon();
    const before = built.length;
    const r = await query(d, { action: "ReadLogFile", args: { path: `${logDir}/app.log` }, host: "lab-a" });
    expect(built.length).toBe(before + 1);
    expect(built.at(-1)).toMatchObject({ name: "lab-a", primary_ip: "10.99.0.1", ssh: { host: "10.99.0.1", port: 22 }, machine: { name: "lab-a", tags: ["lab"] } });
    expect(r.meta).toMatchObject({ host: "lab-a", hostname: "standin-lab-a", action: "ReadLogFile", untrusted: true });
    expect(JSON.stringify(r.data)).not.toContain(SECRET);
    expect(r.meta.redactions).toBeGreaterThan(0);
    await query(d, { action: "GetNetworkInterfaces", args: {}, host: "lab-a" });
    expect(built.length).toBe(before + 1);
    expect(d.service.deps.hosts.cached()).toEqual(["lab-a"]);
    expect(audits(d, "query.remote").at(-1)).toMatchObject({ action: "GetNetworkInterfaces", host: "lab-a", machine: "lab-a", policies: ["read-lab"] });
  });

  it("an inventory change to the host is a new generation: the old context is closed and a fresh one built; a host that leaves is dropped", async () => {
    const d = await daemon();
    await query(d, { action: "GetNetworkInterfaces", args: {}, host: "moving-1" });
    const first = built.filter((r) => r.name === "moving-1").length;
    writeFileSync(sshConfig, "Host moving-1\n  HostName 10.99.2.1\n  Port 2202\n");
    await query(d, { action: "GetNetworkInterfaces", args: {}, host: "moving-1" });
    expect(built.filter((r) => r.name === "moving-1").length).toBe(first + 1);
    expect(built.at(-1)?.ssh?.port).toBe(2202);
    expect(closed.filter((n) => n === "moving-1").length).toBe(1);
    // The entry leaves the inventory: the name is now a literal host (no tags), which the read policy does not
    // grant; its cached context is closed before the refusal, and nothing is built for it.
    writeFileSync(sshConfig, "");
    const builds = built.length;
    await expect(query(d, { action: "GetNetworkInterfaces", args: {}, host: "moving-1" })).rejects.toMatchObject({ code: "refused" });
    expect(closed.filter((n) => n === "moving-1").length).toBe(2);
    expect(built.length).toBe(builds);
    expect(d.service.deps.hosts.cached()).not.toContain("moving-1");
    writeFileSync(sshConfig, "Host moving-1\n  HostName 10.99.2.1\n  Port 2201\n");
  });

  it("a host whose key changed after its context was cached: a clear error, the context dropped, a fresh one on the next call", async () => {
    const d = await daemon();
    await query(d, { action: "GetNetworkInterfaces", args: {}, host: "keyed" });
    const builds = built.filter((r) => r.name === "keyed").length;
    keyChanged = true;
    try {
      const err = await query(d, { action: "GetNetworkInterfaces", args: {}, host: "keyed" }).catch((e: unknown) => e as HostgateError);
      expect(err).toMatchObject({ code: "host_key_mismatch" });
      expect((err as HostgateError).message).toContain("that context was dropped");
      expect((err as HostgateError).hint).toContain("connects afresh");
      expect(d.service.deps.hosts.cached()).not.toContain("keyed");
    } finally {
      keyChanged = false;
    }
    await query(d, { action: "GetNetworkInterfaces", args: {}, host: "keyed" });
    expect(built.filter((r) => r.name === "keyed").length).toBe(builds + 1);
  });

  it("unknown and hostile host names: refused before resolution, the error says how to find hosts; nothing is built", async () => {
    const d = await daemon();
    const builds = built.length;
    for (const name of ["a$(touch /tmp/x)", "-oProxyCommand=sh", "a b", "web;id", "x\ny"]) {
      await expect(query(d, { action: "GetNetworkInterfaces", args: {}, host: name }), name).rejects.toMatchObject({ code: "invalid_params" });
    }
    // A name the host-id rule accepts but no resolution can dial (a leading dash is never an ssh host).
    const err = await d.service.deps.hosts.resolve("-x").catch((e: unknown) => e as HostgateError);
    expect(err).toMatchObject({ code: "invalid_params" });
    expect((err as HostgateError).hint).toContain("search_hosts");
    // A registry with no inventory source: unknown_host, with the way to find hosts.
    const bare = await new HostRegistry().resolve("web-9").catch((e: unknown) => e as HostgateError);
    expect(bare).toMatchObject({ code: "unknown_host" });
    expect((bare as HostgateError).hint).toContain("search_hosts lists them");
    expect(built.length).toBe(builds);
  });
});

describe("reading a remote host is gated like exec_on_host's hosts", () => {
  it("deny by default: no permit for the host → refused (audited with the host), never dialed; no policy at all → refused", async () => {
    const d = await daemon();
    const builds = built.length;
    const err = await query(d, { action: "GetNetworkInterfaces", args: {}, host: "plain" }).catch((e: unknown) => e as HostgateError);
    expect(err).toMatchObject({ code: "refused" });
    expect((err as HostgateError).hint).toContain('Hostgate::Action::"read"');
    expect(built.length).toBe(builds);
    expect(audits(d, "query.refused").at(-1)).toMatchObject({ action: "GetNetworkInterfaces", host: "plain", code: "refused" });
    const none = await daemon({ policy: false });
    await expect(query(none, { action: "GetNetworkInterfaces", args: {}, host: "lab-a" })).rejects.toMatchObject({ code: "refused", message: expect.stringContaining("no policy is configured") as unknown });
    // local stays ungated, as before.
    expect((await query(none, { action: "GetNetworkInterfaces", args: {} })).meta.host).toBe("local");
  });

  it("an action the host's context does not offer is refused before any port (systemd on a files-only host; anything typed on an exec-only host)", async () => {
    const d = await daemon();
    await expect(query(d, { action: "ListUnits", args: {}, host: "lab-a" })).rejects.toMatchObject({ code: "unavailable", message: expect.stringContaining("needs systemd") as unknown });
    const execOnly = await daemon({ factory: null });
    const err = await query(execOnly, { action: "GetNetworkInterfaces", args: {}, host: "lab-a" }).catch((e: unknown) => e as HostgateError);
    expect(err).toMatchObject({ code: "unavailable", details: { offered: ["exec"] } });
    expect((err as HostgateError).hint).toContain("exec_on_host");
  });

  it("plan on a remote host checks what it offers: WriteFile needs mutate, which a files-only host lacks", async () => {
    const d = await daemon();
    const r = await d.service.agent("host-ctx").call("plan", { host: "lab-a", steps: [{ action: "WriteFile", params: { path: "/tmp/x", content: "y" } }] });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error).toMatchObject({ code: "unavailable", message: expect.stringContaining("mutate") as unknown });
  });
});

describe("fan-out: query { hosts }", () => {
  it("identical answers grouped with their hosts; a failing and a hanging host reported beside them (bounded by the timeout), none dropped", async () => {
    const d = await daemon();
    d.service.deps.fanout = { concurrency: 4, timeout_ms: 1500 };
    const r = await query(d, { action: "ReadLogFile", args: { path: `${logDir}/app.log` }, hosts: ["lab-a", "hang", "lab-b", "down", "plain"] });
    const data = r.data as FanOutData;
    expect(data.groups).toHaveLength(1);
    expect(data.groups[0]!.hosts).toEqual(["lab-a", "lab-b"]);
    expect(JSON.stringify(data)).not.toContain(SECRET);
    expect(data.errors.map((e) => [e.host, e.code])).toEqual([["hang", "timeout"], ["down", "unreachable"], ["plain", "refused"]]);
    expect(r.meta).toMatchObject({ host: "lab-a", hosts: ["lab-a", "hang", "lab-b", "down", "plain"], action: "ReadLogFile", untrusted: true });
    expect(r.meta.redactions).toBeGreaterThanOrEqual(2);
  });

  it("host and hosts together, or more than 100 hosts, are refused with what to send", async () => {
    const d = await daemon();
    await expect(query(d, { action: "GetLoad", args: {}, host: "lab-a", hosts: ["lab-b"] })).rejects.toMatchObject({ message: expect.stringContaining("host or hosts") as unknown });
    await expect(query(d, { action: "GetLoad", args: {}, hosts: Array.from({ length: 101 }, (_, i) => `h${i}`) })).rejects.toBeInstanceOf(HostgateError);
  });
});

describe("systemd resources of remote hosts: systemd://host/<host>/system/...", () => {
  const read = async (d: ComposedDaemon, uri: string) => d.service.agent("host-ctx").call("resource_read", { uri });

  it("a unit on an inventory host reads through its own manager, under the read policy; the local URIs keep meaning local", async () => {
    const d = await daemon();
    const templates = await d.service.agent("t").call("resource_templates_list", {});
    expect(templates.ok && templates.value.map((t) => t.uriTemplate)).toContain("systemd://host/{host}/system/unit/{type}/{name}");
    const remote = await read(d, "systemd://host/units/system/unit/service/nginx");
    expect(remote.ok && remote.value).toMatchObject({ uri: "systemd://host/units/system/unit/service/nginx", mimeType: "application/json" });
    expect(remote.ok && remote.value.text).toContain("A high performance web server");
    // The unit file's drop-in holds a token: redacted in the remote answer before it leaves the daemon.
    const def = await read(d, "systemd://host/units/system/unit/service/nginx/definition");
    expect(def.ok && def.value.text).toContain("NGINX_API_TOKEN");
    expect(def.ok && def.value.text).not.toContain("abc123");
    const local = await read(d, "systemd://system/unit/service/nginx");
    expect(local.ok).toBe(true);
    expect(audits(d, "query.remote").slice(-2)).toMatchObject([{ action: "ReadUnit", host: "units" }, { action: "ReadUnitDefinition", host: "units" }]);
  });

  it("refusals: a host without systemd, a host the policy does not grant, a hostile host segment", async () => {
    const d = await daemon();
    const nosd = await read(d, "systemd://host/lab-a/system/unit/service/nginx");
    expect(!nosd.ok && nosd.error).toMatchObject({ code: "unavailable" });
    const plain = await read(d, "systemd://host/plain/system/unit/service/nginx");
    expect(!plain.ok && plain.error).toMatchObject({ code: "refused" });
    const builds = built.length;
    for (const uri of ["systemd://host/a$(id)/system/unit/service/nginx", "systemd://host/-oProxyCommand=x/system/unit/service/nginx", "systemd://host/units"]) {
      const r = await read(d, uri);
      expect(!r.ok && r.error, uri).toMatchObject({ code: "invalid_uri" });
    }
    expect(built.length).toBe(builds);
  });
});
