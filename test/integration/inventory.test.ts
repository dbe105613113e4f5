/**
 * search_hosts / list_backends over real providers: a static list, an ssh client config, a known_hosts file
 * with hashed entries, podman's Docker-compatible API, and a Unix socket that accepts and never answers (a
 * hanging backend). Cache ttl, refresh, no_cache, cache_dir and overrides precedence.
 */
import { createServer, type Server } from "node:net";
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Inventory, type Backend } from "../../src/app/inventory.ts";
import { InventoryCache } from "../../src/adapters/inventory/cache.ts";
import { StaticProvider } from "../../src/adapters/inventory/static.ts";
import { SshConfigProvider } from "../../src/adapters/inventory/ssh-config.ts";
import { KnownHostsProvider } from "../../src/adapters/inventory/known-hosts.ts";
import { DockerProvider } from "../../src/adapters/inventory/docker.ts";
import { ProviderConfigSchema, type ProviderConfig } from "../../src/config/hosts.ts";
import type { InventoryProvider } from "../../src/ports/inventory-provider.ts";
import { podmanPrereqs, startPodman, type PodmanPeer } from "../peers/podman.ts";
import { hashedName } from "../peers/netns-sshd.ts";

const dir = mkdtempSync(join(tmpdir(), "hg-inventory-"));
const cfg = (c: unknown): ProviderConfig => ProviderConfigSchema.parse(c);
const backend = (p: InventoryProvider, c: ProviderConfig): Backend => ({ provider: p, timeout_ms: c.timeout_ms, cache_ttl_s: c.cache_ttl, cache_dir: c.cache_dir });

function fixtures(): { staticCfg: ProviderConfig; sshCfg: ProviderConfig; khCfg: ProviderConfig } {
  writeFileSync(join(dir, "ssh_config"), "Host lab1 lab2\n  HostName %h.lab.example\n  User ops\nHost *.wild\n  User x\n");
  writeFileSync(join(dir, "known_hosts"), [`db1,10.0.0.7 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBx`, `[db2]:2222 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBy`, `${hashedName("secret-host")} ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBz`, ""].join("\n"));
  return {
    staticCfg: cfg({ kind: "static", name: "fleet", tags: ["prod"], hosts: [{ name: "web1", address: "10.0.0.5", tags: ["web"] }, { name: "pg-primary", address: "10.0.0.6", user: "postgres" }] }),
    sshCfg: cfg({ kind: "ssh_config", files: [join(dir, "ssh_config")] }),
    khCfg: cfg({ kind: "known_hosts", files: [join(dir, "known_hosts")] }),
  };
}

describe("inventory search across providers", () => {
  const { staticCfg, sshCfg, khCfg } = fixtures();
  const inv = new Inventory({
    backends: [backend(new StaticProvider(staticCfg as never), staticCfg), backend(new SshConfigProvider(sshCfg as never, "/root"), sshCfg), backend(new KnownHostsProvider(khCfg as never, "/root"), khCfg)],
    defaulted: false,
    cache: new InventoryCache(),
  });

  it("lists every backend's hosts with provider, backend, tags and ssh user", async () => {
    const r = await inv.search({});
    expect(r.errors).toEqual([]);
    expect(r.records.map((x) => `${x.backend}/${x.name}/${x.primary_ip}`).sort()).toEqual([
      "fleet/pg-primary/10.0.0.6", "fleet/web1/10.0.0.5", "known_hosts/10.0.0.7/10.0.0.7", "known_hosts/db1/db1", "known_hosts/db2:2222/db2",
      "ssh_config/lab1/lab1.lab.example", "ssh_config/lab2/lab2.lab.example",
    ].sort());
    expect(r.records.find((x) => x.name === "web1")).toMatchObject({ tags: ["prod", "web"], provider: "static" });
    expect(r.records.find((x) => x.name === "lab1")).toMatchObject({ ssh_user: "ops" });
  });

  it("filters by name, regex, provider kind and backend", async () => {
    expect((await inv.search({ name: "LAB" })).records.map((x) => x.name)).toEqual(["lab1", "lab2"]);
    expect((await inv.search({ name_regex: "^db\\d" })).records.map((x) => x.name)).toEqual(["db1", "db2:2222"]);
    expect((await inv.search({ providers: "static" })).count).toBe(2);
    expect((await inv.search({ backends: "known_hosts" })).count).toBe(3);
    await expect(inv.search({ backends: "nope" })).rejects.toMatchObject({ code: "invalid_params" });
    await expect(inv.search({ name_regex: "(" })).rejects.toMatchObject({ code: "invalid_params" });
  });

  it("list_backends says that hashed known_hosts entries cannot be listed", async () => {
    await inv.search({ refresh: true });
    const kh = inv.listBackends().backends.find((b) => b.kind === "known_hosts")!;
    expect(kh.notes.join(" ")).toMatch(/hashed entries .* cannot be listed.*1 hashed entry not listed/);
    expect((await inv.search({ name: "secret-host" })).count).toBe(0);
  });

  it("refuses per-request cache_dir and config_path (a tool does not pick files the daemon reads or writes)", async () => {
    await expect(inv.search({ cache_dir: "/tmp/x" })).rejects.toMatchObject({ code: "invalid_params" });
    await expect(inv.search({ config_path: "/etc/shadow" })).rejects.toMatchObject({ code: "invalid_params" });
    await expect(inv.search({ overrides: { ssh_config: { files: ["/etc/shadow"] } } })).rejects.toMatchObject({ code: "invalid_params" });
  });

  it("resolves exec targets: inventory name, then literal (validated)", async () => {
    expect((await inv.resolveTarget("web1")).ssh).toMatchObject({ host: "10.0.0.5", port: 22 });
    expect((await inv.resolveTarget("pg-primary")).ssh?.user).toBe("postgres");
    expect((await inv.resolveTarget("192.0.2.1")).backend).toBe("literal");
    await expect(inv.resolveTarget("-oProxyCommand=id")).rejects.toMatchObject({ code: "invalid_target" });
  });

  it("paginates with a cursor bound to the query", async () => {
    const p1 = await inv.search({ limit: 3 });
    expect(p1.records).toHaveLength(3);
    const p2 = await inv.search({ limit: 3, cursor: p1.next_cursor! });
    expect(p2.records.map((x) => x.name)).not.toContain(p1.records[0]!.name);
    await expect(inv.search({ limit: 3, name: "x", cursor: p1.next_cursor! })).rejects.toMatchObject({ code: "invalid_params" });
  });
});

describe("a failing or hanging backend never fails or delays the search", () => {
  let hang: Server;
  const hangSock = join(dir, "hang.sock");
  beforeAll(async () => {
    hang = createServer(() => undefined);
    await new Promise<void>((r) => hang.listen(hangSock, r));
  });
  afterAll(() => {
    hang.close();
  });

  it("lists the others and reports the hanging docker socket after its timeout, and a missing socket at once", async () => {
    const { staticCfg } = fixtures();
    const hanging = cfg({ kind: "docker", name: "hung", socket: hangSock, timeout_ms: 300 });
    const missing = cfg({ kind: "docker", name: "gone", socket: join(dir, "no.sock") });
    const inv = new Inventory({ backends: [backend(new StaticProvider(staticCfg as never), staticCfg), backend(new DockerProvider(hanging as never), hanging), backend(new DockerProvider(missing as never), missing)], defaulted: false, cache: new InventoryCache() });
    // A backend that never answers is abandoned at its own timeout (the error says so); without it this search
    // would hang until the test's timeout.
    const r = await inv.search({});
    expect(r.count).toBe(2);
    expect(r.errors).toEqual([
      { backend: "hung", kind: "docker", code: "timeout", message: "backend hung did not answer within 300 ms" },
      expect.objectContaining({ backend: "gone", code: "unavailable" }),
    ]);
  });
});

describe("cache: ttl, refresh, no_cache, cache_dir", () => {
  it("reuses a listing within cache_ttl, lists live on refresh/no_cache, and persists in cache_dir", async () => {
    const khPath = join(dir, "kh-cache");
    writeFileSync(khPath, "a1 ssh-ed25519 AAAA\n");
    const cacheDir = join(dir, "cache");
    const c = cfg({ kind: "known_hosts", files: [khPath], cache_ttl: 60, cache_dir: cacheDir });
    let now = 1_000_000;
    const mk = (): Inventory => new Inventory({ backends: [backend(new KnownHostsProvider(c as never, "/root"), c)], defaulted: false, cache: new InventoryCache(), now: () => now });
    const inv = mk();
    expect((await inv.search({})).records.map((r) => r.name)).toEqual(["a1"]);
    writeFileSync(khPath, "a1 ssh-ed25519 AAAA\na2 ssh-ed25519 AAAA\n");
    const cached = await inv.search({});
    expect(cached.count).toBe(1);
    expect(cached.backends[0]!.cached).toBe(true);
    expect((await inv.search({ no_cache: true })).count).toBe(2);
    expect((await inv.search({})).count).toBe(1); // no_cache did not store
    expect((await inv.search({ cache_ttl: 0 })).count).toBe(2); // a request may only lower the ttl
    expect((await inv.search({ refresh: true })).count).toBe(2);
    writeFileSync(khPath, "a1 ssh-ed25519 AAAA\n");
    // a second daemon (fresh memory) reads the cache_dir copy
    expect((await mk().search({})).count).toBe(2);
    expect(readdirSync(cacheDir).filter((f) => f.endsWith(".json"))).toHaveLength(1);
    now += 61_000;
    expect((await inv.search({})).count).toBe(1);
  });

  it("a cache_dir that cannot be written is reported, the listing still answers", async () => {
    const blocker = join(dir, "blocker");
    writeFileSync(blocker, "");
    const { staticCfg } = fixtures();
    const c = { ...staticCfg, cache_dir: join(blocker, "sub") };
    const inv = new Inventory({ backends: [backend(new StaticProvider(c as never), c)], defaulted: false, cache: new InventoryCache() });
    const r = await inv.search({});
    expect(r.count).toBe(2);
    expect(r.errors[0]).toMatchObject({ backend: "fleet", message: expect.stringMatching(/cache_dir .* could not be written/) as unknown });
  });
});

const noPodman = podmanPrereqs();
if (noPodman && process.env.HOSTGATE_REQUIRE_PEERS === "1") throw new Error(`podman peer required: ${noPodman}`);
if (noPodman) process.stderr.write(`SKIPPING docker provider against podman: ${noPodman}\n`);

describe.skipIf(noPodman !== null)("docker provider against podman's Docker-compatible API", () => {
  let pod: PodmanPeer;
  beforeAll(async () => {
    pod = await startPodman();
    pod.create("web");
    pod.create("db", { tier: "data" });
  });
  afterAll(async () => {
    await pod?.stop();
  });

  it("overrides → config → default: `all` decides whether created (not running) containers are listed", async () => {
    mkdirSync(join(dir, "p"), { recursive: true });
    const byDefault = cfg({ kind: "docker", socket: pod.socket, label: pod.label, cache_ttl: 0, timeout_ms: 10_000 });
    const configured = cfg({ kind: "docker", socket: pod.socket, label: pod.label, all: true, cache_ttl: 0, timeout_ms: 10_000 });
    const inv = (c: ProviderConfig): Inventory => new Inventory({ backends: [backend(new DockerProvider(c as never), c)], defaulted: false, cache: new InventoryCache() });
    expect((await inv(byDefault).search({})).count).toBe(0); // default all=false: created containers are not running
    const r = await inv(configured).search({});
    expect(r.records.map((x) => x.name).sort()).toEqual([`hosts-${process.pid}-db`, `hosts-${process.pid}-web`]);
    expect(r.records[0]).toMatchObject({ provider: "docker", meta: { state: "created" } });
    expect((await inv(byDefault).search({ overrides: { docker: { all: true } } })).count).toBe(2); // override beats default
    expect((await inv(configured).search({ overrides: { docker: { all: false } } })).count).toBe(0); // override beats config
    expect((await inv(configured).search({ overrides: { docker: { label: "tier=data" } } })).records.map((x) => x.name)).toEqual([`hosts-${process.pid}-db`]);
    await expect(inv(configured).search({ overrides: { docker: { socket: "/run/other.sock" } } })).rejects.toMatchObject({ code: "invalid_params" });
  });
});
