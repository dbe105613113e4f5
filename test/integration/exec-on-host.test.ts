/**
 * exec_on_host end to end inside the daemon's use case: real sshd hosts in network namespaces, the real risk
 * engine, the Cedar policy engine, a real SQLite audit chain. Gate before connection, fan-out to 20 hosts with
 * grouped outputs, an unreachable host among reachable ones, fail-closed audit.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CallerSlots, execOnHost, sandboxTarget, type ExecCaller, type ExecDeps } from "../../src/app/exec-on-host.ts";
import { hostDetails } from "../../src/app/host-details.ts";
import { Inventory } from "../../src/app/inventory.ts";
import { InventoryCache } from "../../src/adapters/inventory/cache.ts";
import { StaticProvider } from "../../src/adapters/inventory/static.ts";
import { SshExecutor } from "../../src/adapters/exec-ssh/ssh-executor.ts";
import { LocalExecutor } from "../../src/adapters/exec-local.ts";
import { Sandboxes } from "../../src/app/sandbox.ts";
import { CedarPolicyEngine } from "../../src/adapters/policy-cedar/cedar-engine.ts";
import { type SqliteAuditStore } from "../../src/adapters/audit-sqlite.ts";
import { openAuditStore } from "../../src/daemon/audit-store.ts";
import { ProviderConfigSchema } from "../../src/config/hosts.ts";
import { SshConfigProvider } from "../../src/adapters/inventory/ssh-config.ts";
import { netnsPrereqs, startNetnsLab, type NetnsLab } from "../peers/netns-sshd.ts";
import { testEngine } from "../support/risk-engine.ts";
import { judge } from "../../src/core/policy/gate.ts";
import { execPolicyRequest } from "../../src/core/policy/exec-request.ts";
import type { HostRecord } from "../../src/core/inventory/record.ts";
import { RUN_UID_POOL } from "../../src/core/sandbox/confine.ts";

const missing = netnsPrereqs();
if (missing && process.env.HOSTGATE_REQUIRE_PEERS === "1") throw new Error(`netns sshd peers required: ${missing}`);
if (missing) process.stderr.write(`SKIPPING exec_on_host integration: ${missing}\n`);

const operator: ExecCaller = { role: "operator", client: "test-client", uid: 0, actor: "uid:0" };

describe.skipIf(missing !== null)("exec_on_host against 20 real sshd hosts", () => {
  let lab: NetnsLab;
  let store: SqliteAuditStore;
  let executor: SshExecutor;
  let deps: ExecDeps;
  const marker = join(mkdtempSync(join(tmpdir(), "hg-exec-")), "ran");
  const settings = { allow_unverified: false, risk_disabled: false, max_output_bytes: 64 * 1024, fanout_concurrency: 32, max_hosts: 100, max_timeout_sec: 300, max_per_caller: 4, local_hide_dirs: [] };
  const kinds = (): string[] => store.query().map((e) => e.kind);
  // get_host_details' probe is judged like any exec (the same gate, the caller as principal).
  const probeJudge = async (rec: HostRecord, command: string) => {
    const a = (await testEngine()).assess(command, { interpreter: "sh" });
    return judge(a, deps.policy, execPolicyRequest(a, command, "sh", operator, rec), settings);
  };

  beforeAll(async () => {
    lab = await startNetnsLab(20);
    const cfg = ProviderConfigSchema.parse({
      kind: "static", name: "lab",
      hosts: lab.hosts.map((h, i) => ({ name: h.name, address: h.ip, user: "root", tags: i === 19 ? ["prod"] : ["lab"] })),
    });
    const inventory = new Inventory({ backends: [{ provider: new StaticProvider(cfg as never), timeout_ms: 2000, cache_ttl_s: 60, cache_dir: undefined }], defaulted: false, cache: new InventoryCache() });
    executor = new SshExecutor({ known_hosts: [lab.knownHosts], host_keys: "strict", default_user: "root", default_identity_files: [lab.clientKey], connect_timeout_ms: 2000 });
    store = openAuditStore(mkdtempSync(join(tmpdir(), "hg-exec-state-")), { checkpointIdleMs: 0 });
    deps = { engine: testEngine(), policy: CedarPolicyEngine.load("examples/policies"), inventory, executor, local: new LocalExecutor(), sandboxes: new Sandboxes(), audit: store, settings };
  });
  afterAll(async () => {
    executor?.close();
    store?.close();
    await lab?.stop();
  });

  it("allowed by policy: runs, reports the exec result, and audits decision and result", async () => {
    const before = store.query().length;
    const r = await execOnHost({ host: "lab2", command: "hostname", name: "first" }, operator, deps);
    if (!("results" in r)) throw new Error("expected results");
    expect(r.decision).toMatchObject({ decision: "allow", risk_level: "low" });
    expect(r.results).toEqual([expect.objectContaining({ host: "first", ip: lab.hosts[0]!.ip, stdout: "lab2\n", exit_code: 0, signal: null, error: "", code: null })]);
    // Issue 22: the output once, as stdout; no `output` copy.
    expect(Object.keys(r.results[0]!)).not.toContain("output");
    expect(kinds().slice(before)).toEqual(["exec.decision", "exec.result"]);
  });

  it("the exec.result entry names how each host was reached: SSH user, host key fingerprint as ssh-keygen -lf prints it, no sudo (issue 20)", async () => {
    const before = store.query().length;
    const r = await execOnHost({ hosts: ["lab4", "lab5"], command: "hostname" }, operator, deps);
    expect("results" in r && r.results.map((x) => x.exit_code)).toEqual([0, 0]);
    const entry = store.query().slice(before).find((e) => e.kind === "exec.result")!;
    const results = (JSON.parse(entry.payload) as { results: { host: string; via?: unknown }[] }).results;
    const keygen = (name: string): string => spawnSync("ssh-keygen", ["-lf", join(lab.dir, name, "host_key.pub")], { encoding: "utf8" }).stdout.split(" ")[1]!;
    expect(keygen("lab4")).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
    expect(results).toEqual([
      expect.objectContaining({ host: "lab4", via: { ssh_user: "root", host_key: keygen("lab4"), host_key_type: "ssh-ed25519", sudo: false } }),
      expect.objectContaining({ host: "lab5", via: { ssh_user: "root", host_key: keygen("lab5"), host_key_type: "ssh-ed25519", sudo: false } }),
    ]);
    expect(keygen("lab4")).not.toBe(keygen("lab5"));
  });

  it("a host named twice, or under a second name for the same address, is refused before anything runs (each run holds a sandbox uid: red team re-trial)", async () => {
    const before = store.query().length;
    const twice = execOnHost({ hosts: ["lab2", "lab3", "lab2"], command: "hostname" }, operator, deps);
    await expect(twice).rejects.toMatchObject({ code: "invalid_params" });
    await expect(twice).rejects.toThrow("lab2 more than once");
    const alias = execOnHost({ hosts: ["lab2", lab.hosts[0]!.ip], command: "hostname" }, operator, deps);
    await expect(alias).rejects.toMatchObject({ code: "invalid_params" });
    await expect(alias).rejects.toThrow(`lab2 and ${lab.hosts[0]!.ip} are the same host`);
    expect(store.query().length).toBe(before);
  });

  it("exit codes, signals and timeouts come back per host", async () => {
    const r = await execOnHost({ host: "lab3", command: "exit 7" }, operator, deps);
    expect("results" in r && r.results[0]!.exit_code).toBe(7);
    const t = await execOnHost({ host: "lab3", command: "sleep 5", timeout_sec: 1 }, operator, deps);
    expect("results" in t && t.results[0]).toMatchObject({ timed_out: true, exit_code: null });
  });

  it("no policy configured: refused before any connection, audited", async () => {
    await expect(execOnHost({ host: "lab2", command: `touch ${marker}` }, operator, { ...deps, policy: null })).rejects.toMatchObject({ code: "refused" });
    expect(existsSync(marker)).toBe(false);
    const last = store.query().at(-1)!;
    expect(last.kind).toBe("exec.decision");
    expect(JSON.parse(last.payload)).toMatchObject({ decision: "deny", policy_source: "none", hosts: ["lab2"] });
  });

  it("exec.allow_unverified lets the risk engine alone decide — but never a critical command", async () => {
    const loose = { ...deps, policy: null, settings: { ...settings, allow_unverified: true } };
    const r = await execOnHost({ host: "lab2", command: "echo fine" }, operator, loose);
    expect("results" in r && r.results[0]!.stdout).toBe("fine\n");
    await expect(execOnHost({ host: "lab2", command: "mkfs.ext4 /dev/sda1" }, operator, loose)).rejects.toMatchObject({ code: "refused", details: { risk_level: "critical" } });
    await expect(execOnHost({ host: "lab2", command: "mkfs.ext4 /dev/sda1" }, operator, { ...loose, settings: { ...loose.settings, risk_disabled: true } })).rejects.toMatchObject({ code: "refused" });
  });

  it("policy deny and require_approval are refused before connecting when no approval path is wired", async () => {
    await expect(execOnHost({ host: "lab2", command: "apt-get remove -y nginx" }, operator, deps)).rejects.toMatchObject({ code: "refused", details: { decision: "deny" } });
    await expect(execOnHost({ host: "lab21", command: `touch ${marker}` }, operator, deps)).rejects.toMatchObject({ code: "refused", details: { decision: "require_approval" } });
    expect(existsSync(marker)).toBe(false);
  });

  it("require_approval with an approval path answers with the plan instead of running", async () => {
    const seen: unknown[] = [];
    const r = await execOnHost({ host: "lab21", command: `touch ${marker}` }, operator, { ...deps, requestApproval: (req) => { seen.push(req); return Promise.resolve({ transaction_id: "tx-1", preview_hash: "h" }); } });
    expect(r).toMatchObject({ approval: { transaction_id: "tx-1" }, decision: { decision: "require_approval" } });
    expect(seen[0]).toMatchObject({ hosts: ["lab21"], command: `touch ${marker}`, shell: "sh" });
    expect(existsSync(marker)).toBe(false);
  });

  it("fan-out to 20 hosts: one result per host, identical outputs grouped once", async () => {
    const hosts = lab.hosts.slice(0, 19).map((h) => h.name);
    const same = await execOnHost({ hosts, command: "echo same" }, operator, deps);
    if (!("results" in same)) throw new Error("expected results");
    expect(same.results).toHaveLength(19);
    expect(same.groups).toEqual([{ hosts, exit_code: 0, signal: null, stdout: "same\n", stderr: "", error: "" }]);
    expect(same.results.every((r) => r.group === 0 && r.stdout === "")).toBe(true);
    const distinct = await execOnHost({ hosts, command: "hostname" }, operator, deps);
    expect("groups" in distinct && distinct.groups.map((g) => g.stdout)).toEqual(hosts.map((h) => `${h}\n`));
  });

  it("an unreachable host is reported while the others succeed", async () => {
    lab.setLink(lab.hosts[5]!, false);
    try {
      const r = await execOnHost({ hosts: ["lab2", "lab7", "lab3"], command: "echo up" }, operator, { ...deps, executor: new SshExecutor({ known_hosts: [lab.knownHosts], host_keys: "strict", default_user: "root", default_identity_files: [lab.clientKey], connect_timeout_ms: 1000 }) });
      if (!("results" in r)) throw new Error("expected results");
      expect(r.results.map((x) => [x.host, x.code])).toEqual([["lab2", null], ["lab7", "unreachable"], ["lab3", null]]);
      expect(r.groups.find((g) => g.hosts.includes("lab2"))!.hosts).toEqual(["lab2", "lab3"]);
      // Each result points at the group that lists its host: the failure's own group, the two answers' shared one.
      expect(r.results.map((x) => x.group)).toEqual([0, 1, 0]);
      expect(r.results.every((x) => r.groups[x.group!]!.hosts.includes(x.host))).toBe(true);
      expect(r.groups[1]).toMatchObject({ hosts: ["lab7"], exit_code: null, stdout: "" });
    } finally {
      lab.setLink(lab.hosts[5]!, true);
    }
  });

  it("targets are validated before anything is judged or dialed (S001, S018)", async () => {
    const before = store.query().length;
    // Refused by the one host-name rule of every tool (issue 22: a letter or digit first), before any resolution.
    await expect(execOnHost({ host: "-oProxyCommand=id", command: "true" }, operator, deps)).rejects.toMatchObject({ code: "invalid_params", message: expect.stringContaining("starting with a letter or a digit") as string });
    await expect(execOnHost({ host: "lab2", name: "check disk\nuseradd backdoor", command: "true" }, operator, deps)).rejects.toMatchObject({ code: "invalid_params" });
    await expect(execOnHost({ host: "lab2", hosts: ["lab3"], command: "true" }, operator, deps)).rejects.toMatchObject({ code: "invalid_params" });
    await expect(execOnHost({ host: "lab2", command: "true", timeout_sec: 3601 }, operator, deps)).rejects.toMatchObject({ code: "invalid_params" });
    expect(store.query().length).toBe(before);
  });

  it("fails closed: when the audit entry cannot be written, nothing runs", async () => {
    const dead = openAuditStore(mkdtempSync(join(tmpdir(), "hg-exec-dead-")), { checkpointIdleMs: 0 });
    dead.close();
    await expect(execOnHost({ host: "lab2", command: `touch ${marker}` }, operator, { ...deps, policy: null, settings: { ...settings, allow_unverified: true }, audit: dead })).rejects.toMatchObject({ code: "audit_unavailable" });
    expect(existsSync(marker)).toBe(false);
  });

  it("get_host_details: record and capabilities; probe adds what answers (no systemd in a bare namespace)", async () => {
    const plain = await hostDetails({ name: "lab2" }, { inventory: deps.inventory, executor, audit: store, actor: "uid:0", judge: probeJudge });
    expect(plain).toMatchObject({ record: { name: "lab2", provider: "static", tags: ["lab"] }, ssh: { host: lab.hosts[0]!.ip, port: 22, user: "root" }, capabilities: ["ssh"], probe: { ran: false } });
    const probed = await hostDetails({ name: "lab2", probe: true }, { inventory: deps.inventory, executor, audit: store, actor: "uid:0", judge: probeJudge, sandboxOf: async (r) => deps.sandboxes.forHost(await sandboxTarget(r, deps)) });
    expect(probed.probe).toEqual({ ran: true, error: null, sandbox: expect.stringMatching(/^bubblewrap \(\/usr\/bin\/bwrap\) after setpriv to a uid of its own per run: .*; commands run as a uid of its own per run \(60578–61183, gid the same\)/) as unknown });
    // The lab hosts are network namespaces sharing this machine's files: the probe sees what this machine has
    // (a system daemon's socket too, as on a machine where hostgate is installed: .ci/decoy.sh runs one).
    expect(probed.capabilities).toEqual(["ssh", ...(existsSync("/run/systemd/system") ? ["systemd"] : []), ...(existsSync("/run/hostgate/agent.sock") ? ["hostgate_daemon"] : [])]);
    expect(store.query().at(-1)!.kind).toBe("host.probe");
    await expect(hostDetails({ name: "nope" }, { inventory: deps.inventory, executor, audit: store, actor: "uid:0", judge: probeJudge })).rejects.toMatchObject({ code: "not_found" });
  });

  it("an ssh_config alias is resolved the way `ssh alias` would (HostName, User, IdentityFile, ProxyJump through another alias)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hg-exec-sshcfg-"));
    const cfgPath = join(dir, "config");
    writeFileSync(cfgPath, [
      "Host jump", `  HostName ${lab.hosts[1]!.ip}`,
      "Host mylab", `  HostName ${lab.hosts[2]!.ip}`, "  ProxyJump jump",
      "Host *", "  User root", `  IdentityFile ${lab.clientKey}`, "",
    ].join("\n"));
    const sc = ProviderConfigSchema.parse({ kind: "ssh_config", files: [cfgPath] });
    const provider = new SshConfigProvider(sc as never, "/root");
    const inventory = new Inventory({ backends: [{ provider, timeout_ms: 2000, cache_ttl_s: 0, cache_dir: undefined }], defaulted: true, cache: new InventoryCache(), resolveAlias: (n) => provider.resolve(n) });
    const noKeys = new SshExecutor({ known_hosts: [lab.knownHosts], host_keys: "strict", default_user: "nobody", default_identity_files: [], connect_timeout_ms: 2000 });
    try {
      const r = await execOnHost({ host: "mylab", command: "hostname" }, operator, { ...deps, inventory, executor: noKeys, policy: null, settings: { ...settings, allow_unverified: true } });
      expect("results" in r && r.results[0]).toMatchObject({ host: "mylab", ip: lab.hosts[2]!.ip, stdout: "lab4\n", exit_code: 0 });
    } finally {
      noKeys.close();
    }
  });

  it("cancel: aborting the request kills the remote command", async () => {
    const ac = new AbortController();
    const p = execOnHost({ host: "lab4", command: "sleep 30", timeout_sec: 0 }, operator, deps, ac.signal);
    setTimeout(() => { ac.abort(); }, 500);
    const r = await p;
    expect("results" in r && r.results[0]!.error).toMatch(/cancelled/);
  });

  describe("unapproved commands run in the host's sandbox over SSH (issue 19)", () => {
    it("root login: bubblewrap after setpriv; the daemon's key, shadow and root files stay out of reach", async () => {
      const dir = mkdtempSync("/var/lib/hg-exec-key-");
      const key = join(dir, "id_ed25519");
      writeFileSync(key, "-----BEGIN OPENSSH PRIVATE KEY-----\nLABKEYMARK\n", { mode: 0o600 });
      const planted = `/etc/hg-exec-planted-${process.pid}`;
      const loose = { ...deps, policy: null, settings: { ...settings, allow_unverified: true, risk_disabled: true } };
      try {
        for (const cmd of [`cat ${key}`, `echo ${key} | xargs cat`, `cat /proc/self/root${key}`, "cat /etc/shadow", `iconv -f utf-8 -t utf-8 -o ${planted} /etc/hostname`, `touch ${planted}`]) {
          const r = await execOnHost({ host: "lab2", command: cmd }, operator, loose);
          if (!("results" in r)) throw new Error("expected results");
          expect(r.results[0]!.sandbox, cmd).toMatch(/^bwrap as a uid of its own per run/);
          expect(r.results[0]!.stdout + r.results[0]!.stderr, cmd).not.toMatch(/LABKEYMARK|^root:/m);
          expect(r.results[0]!.exit_code, cmd).not.toBe(0);
        }
        expect(existsSync(planted)).toBe(false);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it("root login: two commands at once get different uids of the pool; a host process as nobody cannot signal either; the locks are free after", async () => {
      const loose = { ...deps, policy: null, settings: { ...settings, allow_unverified: true, risk_disabled: true } };
      const tag = `6.${process.pid % 1000}`;
      const one = (): Promise<string> => execOnHost({ host: "lab2", command: `id -u; sleep ${tag}` }, operator, loose).then((r) => ("results" in r ? r.results[0]!.stdout : ""));
      const both = Promise.all([one(), one()]);
      // While they run: both sleeps are there, as uids of the pool, and nobody on the host cannot signal them.
      let pids: number[] = [];
      for (let i = 0; i < 100 && pids.length < 2; i++) {
        pids = spawnSync("pgrep", ["-f", `^sleep ${tag}$`], { encoding: "utf8" }).stdout.split("\n").filter(Boolean).map(Number);
        if (pids.length < 2) await new Promise((r) => setTimeout(r, 100));
      }
      expect(pids.length).toBe(2);
      const kill = spawnSync("setpriv", ["--reuid", "65534", "--regid", "65534", "--clear-groups", "kill", "-0", ...pids.map(String)], { encoding: "utf8" });
      expect(kill.status).not.toBe(0);
      expect(kill.stderr.match(/Operation not permitted/g)?.length).toBe(2);
      const uids = (await both).map((o) => Number(o.split("\n")[0]));
      expect(uids[0]).not.toBe(uids[1]);
      for (const u of uids) {
        expect(u).toBeGreaterThanOrEqual(RUN_UID_POOL.first);
        expect(u).toBeLessThanOrEqual(RUN_UID_POOL.last);
        expect(spawnSync("flock", ["-n", `/proc/${lab.hosts[0]!.pid}/root${RUN_UID_POOL.lock_dir}/${u}`, "true"]).status).toBe(0);
      }
    });

    it("cancel kills the command's setsid children too (its own PID namespace)", async () => {
      const ac = new AbortController();
      const p = execOnHost({ host: "lab5", command: "setsid sleep 993 & sleep 30", timeout_sec: 0 }, operator, deps, ac.signal);
      setTimeout(() => { ac.abort(); }, 1500);
      const r = await p;
      expect("results" in r && r.results[0]!.error).toMatch(/cancelled/);
      await new Promise((res) => setTimeout(res, 500));
      expect(spawnSync("pgrep", ["-f", "sleep 99[3]"]).status).toBe(1);
    });

    it("one caller cannot hold every slot: exec.max_per_caller", async () => {
      const slots = new CallerSlots();
      const one = { ...deps, slots, settings: { ...settings, max_per_caller: 1 } };
      const first = execOnHost({ host: "lab6", command: "sleep 2" }, operator, one);
      await new Promise((res) => setTimeout(res, 300));
      await expect(execOnHost({ host: "lab6", command: "true" }, operator, one)).rejects.toMatchObject({ code: "exec_busy" });
      const other = await execOnHost({ host: "lab6", command: "echo other" }, { ...operator, uid: 4242, actor: "uid:4242" }, one);
      expect("results" in other && other.results[0]!.stdout).toBe("other\n");
      await first;
      const again = await execOnHost({ host: "lab6", command: "echo again" }, operator, one);
      expect("results" in again && again.results[0]!.stdout).toBe("again\n");
    });

    it("a fan-out over the answer budget is cut with a flag, not dropped", async () => {
      const hosts = lab.hosts.slice(0, 19).map((h) => h.name);
      const r = await execOnHost({ hosts, command: "hostname; head -c 90000 /dev/zero | tr '\\0' x" }, operator, deps);
      if (!("results" in r)) throw new Error("expected results");
      expect(r.results.every((x) => x.truncated)).toBe(true);
      expect(r.groups).toHaveLength(19);
      expect(Buffer.byteLength(JSON.stringify(r))).toBeLessThan(1024 * 1024);
      expect(r.groups[0]!.stdout.startsWith("lab2\nxxx")).toBe(true);
    });

    it("a pooled connection whose host key is revoked in known_hosts is closed before the next command", async () => {
      const kh = join(mkdtempSync(join(tmpdir(), "hg-exec-kh-")), "known_hosts");
      writeFileSync(kh, readFileSync(lab.knownHosts));
      const ex = new SshExecutor({ known_hosts: [kh], host_keys: "strict", default_user: "root", default_identity_files: [lab.clientKey], connect_timeout_ms: 2000 });
      try {
        const d = { ...deps, executor: ex, sandboxes: new Sandboxes() };
        const ok = await execOnHost({ host: "lab8", command: "echo pooled" }, operator, d);
        expect("results" in ok && ok.results[0]!.stdout).toBe("pooled\n");
        expect(ex.connections).toBe(1);
        writeFileSync(kh, `@revoked * ${lab.hosts[6]!.hostKeyPub}\n${readFileSync(kh, "utf8")}`);
        const after = await execOnHost({ host: "lab8", command: "echo again" }, operator, d);
        expect("results" in after && after.results[0]!.code).toBe("host_key_mismatch");
        expect(ex.connections).toBe(0);
      } finally {
        ex.close();
      }
    });
  });

  it("writes nothing to the marker path in any refused case above", () => {
    writeFileSync(join(tmpdir(), "hg-exec-noop"), "");
    expect(existsSync(marker)).toBe(false);
  });
});
