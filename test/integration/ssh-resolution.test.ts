/**
 * SSH target resolution and policies that bind to machines (issues 19, 21, 22), against two real OpenSSH
 * servers on loopback (A: the card-data machine, B: a lab machine), the daemon's own hosts composition
 * (daemon/hosts.ts: inventory, DNS, known_hosts, ssh2 executor, Cedar with the shipped example policies), the
 * real risk engine and a real SQLite audit chain. Corpus cases T3-06 … T3-11.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execOnHost, type ExecCaller, type ExecDeps } from "../../src/app/exec-on-host.ts";
import { hostDetails } from "../../src/app/host-details.ts";
import type { HostRecord } from "../../src/core/inventory/record.ts";
import { execPolicyRequest } from "../../src/core/policy/exec-request.ts";
import { judge } from "../../src/core/policy/gate.ts";
import { composeHosts, type ComposedHosts } from "../../src/daemon/hosts.ts";
import { CedarPolicyEngine } from "../../src/adapters/policy-cedar/cedar-engine.ts";
import { openAuditStore } from "../../src/daemon/audit-store.ts";
import type { SqliteAuditStore } from "../../src/adapters/audit-sqlite.ts";
import { sshdPrereqs, startSshd, type SshdPeer } from "../peers/sshd.ts";
import { testEngine } from "../support/risk-engine.ts";

const missing = sshdPrereqs();
if (missing && process.env.HOSTGATE_REQUIRE_PEERS === "1") throw new Error(`sshd peer required: ${missing}`);
if (missing) process.stderr.write(`SKIPPING ssh resolution integration: ${missing}\n`);

const operator: ExecCaller = { role: "operator", client: "test-client", uid: 0, actor: "uid:0" };
type Json = Record<string, unknown>;

describe.skipIf(missing !== null)("SSH target resolution against real sshd (corpus T3-06 … T3-11)", () => {
  let a: SshdPeer;
  let b: SshdPeer;
  let store: SqliteAuditStore;
  const work = mkdtempSync(join(tmpdir(), "hg-sshres-"));
  const composed: ComposedHosts[] = [];
  let n = 0;
  const keyOf = (p: SshdPeer): string => readFileSync(join(p.dir, "host_key.pub"), "utf8").split(" ").slice(0, 2).join(" ");
  const file = (name: string, text: string): string => {
    const f = join(work, `${n++}-${name}`);
    writeFileSync(f, text);
    return f;
  };

  /** The daemon's hosts composition from a config this test wrote (nothing from ~/.ssh or /etc is read). */
  /** The hosts feature joined with the policy service's engine over the test's policy directory, as the daemon joins them. */
  type Composed = ComposedHosts & { policy: CedarPolicyEngine };
  function compose(o: { providers: unknown[]; knownHosts?: string; hostKeys?: "strict" | "tofu"; policies?: Record<string, string> }): Composed {
    const dir = mkdtempSync(join(work, "policies-"));
    cpSync("examples/policies", dir, { recursive: true });
    for (const [f, text] of Object.entries(o.policies ?? {})) writeFileSync(join(dir, f), text);
    const h = composeHosts({
      inventory: { providers: o.providers as never },
      exec: { known_hosts: [o.knownHosts ?? file("known_hosts", `[127.0.0.1]:${a.port} ${keyOf(a)}\n[127.0.0.1]:${b.port} ${keyOf(b)}\n[localhost]:${b.port} ${keyOf(b)}\n`)], identity_files: [a.clientKey, b.clientKey], user: "root", use_agent: false, host_keys: o.hostKeys ?? "strict", connect_timeout_ms: 3000 },
    }, { mode: "embedded", stateDir: mkdtempSync(join(work, "state-")) });
    composed.push(h);
    return { ...h, policy: CedarPolicyEngine.load(dir) };
  }
  const deps = (h: Composed): ExecDeps => ({ engine: testEngine(), policy: h.policy, inventory: h.inventory, executor: h.executor, local: h.local, sandboxes: h.sandboxes, audit: store, settings: h.settings });
  const details = (h: Composed) => ({
    inventory: h.inventory, executor: h.executor, audit: store, actor: operator.actor,
    judge: async (rec: HostRecord, command: string) => {
      const as = (await testEngine()).assess(command, { interpreter: "sh" });
      return judge(as, h.policy, execPolicyRequest(as, command, "sh", operator, rec), h.settings);
    },
  });
  const lastAudit = (kind: string): Json => JSON.parse(store.query().filter((e) => e.kind === kind).at(-1)!.payload) as Json;
  const run = async (h: Composed, host: string, command = "echo reached", name?: string) => {
    const r = await execOnHost({ host, command, ...(name ? { name } : {}) }, operator, deps(h));
    if (!("results" in r)) throw new Error("expected results");
    return r.results[0]!;
  };

  beforeAll(async () => {
    [a, b] = await Promise.all([startSshd(), startSshd()]);
    store = openAuditStore(mkdtempSync(join(work, "audit-")), { checkpointIdleMs: 0 });
  });
  afterAll(async () => {
    for (const h of composed) h.close();
    store?.close();
    await Promise.all([a?.stop(), b?.stop()]);
  });

  describe("T3-06: one machine, whatever name reaches it", () => {
    let h: Composed;
    beforeAll(() => {
      const sshConfig = file("ssh_config", [
        "Host card-direct", "  HostName 127.0.0.1", `  Port ${a.port}`,
        // known to be card1 only through known_hosts (its name does not resolve)
        "Host card-key", "  HostName hg-card-key.invalid", `  Port ${a.port}`,
        "Host *", `  Port ${a.port}`, "  User root", "",
      ].join("\n"));
      const knownHosts = file("known_hosts", `[127.0.0.1]:${a.port},[hg-card-key.invalid]:${a.port} ${keyOf(a)}\n[127.0.0.1]:${b.port} ${keyOf(b)}\n`);
      h = compose({
        knownHosts,
        providers: [
          { kind: "static", name: "inv", hosts: [
            { name: "card1", address: "127.0.0.1", port: a.port, user: "root", tags: ["pci", "prod"] },
            { name: "lab-b", address: "127.0.0.1", port: b.port, user: "root", tags: ["lab"] },
          ] },
          { kind: "static", name: "second", hosts: [{ name: "card-b", address: "localhost", port: a.port, user: "root" }] },
          { kind: "ssh_config", files: [sshConfig] },
        ],
      });
    });

    it("T3-06: card1, its ssh_config alias, a second backend's entry, a key-only twin and every IP spelling get card1's decision; nothing is dialed", async () => {
      const refusal = async (host: string): Promise<Json> => {
        const e = await execOnHost({ host, command: "id -un" }, operator, deps(h)).then(() => null, (x: unknown) => x as Json);
        expect(e, host).toMatchObject({ code: "refused", details: { decision: "require_biometric" } });
        const p = (e!.details as Json).policy as { policies: string[]; reasons: string[] };
        // Cedar reports satisfied policies in no fixed order
        return { ...p, policies: [...p.policies].sort(), reasons: [...p.reasons].sort() };
      };
      const card1 = await refusal("card1");
      expect(card1.policies).toContain("pci-needs-passkey");
      for (const other of ["card-direct", "card-b", "card-key", "0x7f000001", "2130706433", "127.1", "0177.0.0.1"]) {
        expect(await refusal(other), other).toEqual(card1);
        expect((lastAudit("exec.decision").machines as Json[])[0], other).toEqual({ name: "card1", address: "127.0.0.1", port: a.port, backend: "inv" });
      }
      expect(h.executor.connections).toBe(0);
    });

    it("the control: a machine whose tags allow it runs the same command (so the refusals above are the tags' doing)", async () => {
      expect(await run(h, "lab-b")).toMatchObject({ stdout: "reached\n", exit_code: 0, code: null });
    });

    it("get_host_details shows the machine's tags; its probe asks the policy like any exec (card1: refused, lab-b: runs)", async () => {
      const d = await hostDetails({ name: "card-direct", probe: true }, details(h));
      expect(d.record).toMatchObject({ name: "card-direct", backend: "ssh_config", tags: ["pci", "prod"], meta: { machine: "card1 (inv)" } });
      expect(d.probe).toMatchObject({ ran: false, error: expect.stringMatching(/^refused \(require_biometric\): .*pci/) as string });
      expect(lastAudit("host.probe")).toMatchObject({ host: "card-direct", machine: "card1", decision: "require_biometric" });
      const before = h.executor.connections;
      expect(before).toBe(1); // lab-b's, from the control test: card1 was never dialed
      const lab = await hostDetails({ name: "lab-b", probe: true }, details(h));
      expect(lab.probe).toMatchObject({ ran: true, error: null });
      expect(lastAudit("host.probe")).toMatchObject({ host: "lab-b", decision: "allow" });
    });

    it("search_hosts filters by tags (every tag named must be carried)", async () => {
      const names = async (tags: string): Promise<string[]> => (await h.inventory.search({ tags })).records.map((r) => r.name);
      expect(await names("pci")).toEqual(["card1"]);
      expect(await names("prod, pci")).toEqual(["card1"]);
      expect(await names("lab")).toEqual(["lab-b"]);
      expect(await names("lab,pci")).toEqual([]);
    });

    it("tagged entries of one machine that disagree: every name of it is refused as a collision, before any judging", async () => {
      const clash = compose({
        providers: [
          { kind: "static", name: "inv", hosts: [{ name: "card1", address: "127.0.0.1", port: a.port, user: "root", tags: ["pci", "prod"] }] },
          { kind: "static", name: "third", hosts: [{ name: "card-lab", address: "localhost", port: a.port, user: "root", tags: ["lab"] }] },
        ],
      });
      const before = store.query().length;
      for (const host of ["card1", "card-lab"]) {
        await expect(execOnHost({ host, command: "id -un" }, operator, deps(clash))).rejects.toMatchObject({
          code: "host_collision", message: expect.stringMatching(/card1 \(inv: pci,prod\); card-lab \(third: lab\)/) as string,
          details: { entries: [{ name: "card1", backend: "inv", tags: ["pci", "prod"] }, { name: "card-lab", backend: "third", tags: ["lab"] }] },
        });
      }
      expect(store.query().length).toBe(before);
      expect(clash.executor.connections).toBe(0);
    });
  });

  describe("literal hosts and numeric spellings", () => {
    it("a literal host gets no tags: the shipped read-only policy does not grant it; only an explicit literal permit does", async () => {
      const providers = [{ kind: "ssh_config", files: [file("ssh_config", `Host *\n  Port ${b.port}\n  User root\n`)] }];
      const shipped = compose({ providers });
      await expect(execOnHost({ host: "127.0.0.1", command: "id -un" }, operator, deps(shipped))).rejects.toMatchObject({ code: "refused", details: { decision: "deny" } });
      expect(lastAudit("exec.decision")).toMatchObject({ machines: [{ name: "127.0.0.1", backend: "literal" }], policies: [] });
      const granted = compose({ providers, policies: { "30-literal.cedar": 'permit (principal in Hostgate::Role::"operator", action == Hostgate::Action::"exec", resource) when { context.risk_rank == 0 && resource.backend == "literal" && resource.address == "127.0.0.1" };\n' } });
      expect(await run(granted, "127.0.0.1")).toMatchObject({ stdout: "reached\n", ip: "127.0.0.1" });
      // the same literal grant covers every spelling of that address, and dials the dotted quad
      expect(await run(granted, "0x7f000001")).toMatchObject({ stdout: "reached\n", ip: "127.0.0.1" });
    });

    it("numeric forms (0x7f000001, 2130706433, 127.1, 0177.0.0.1) reach policy as 127.0.0.1: a forbid on that address holds for each", async () => {
      const h = compose({
        providers: [{ kind: "ssh_config", files: [file("ssh_config", `Host *\n  Port ${b.port}\n  User root\n`)] }],
        policies: {
          "30-literal.cedar": 'permit (principal in Hostgate::Role::"operator", action == Hostgate::Action::"exec", resource) when { context.risk_rank == 0 && resource.backend == "literal" };\n',
          "40-no-loopback.cedar": '@id("no-loopback")\nforbid (principal, action == Hostgate::Action::"exec", resource) when { resource.address == "127.0.0.1" };\n',
        },
      });
      for (const form of ["0x7f000001", "2130706433", "127.1", "0177.0.0.1", "127.0.0.1"]) {
        await expect(execOnHost({ host: form, command: "id -un" }, operator, deps(h)), form).rejects.toMatchObject({ code: "refused", details: { decision: "deny", policy: { policies: ["no-loopback"] } } });
      }
      expect(h.executor.connections).toBe(0);
    });
  });

  describe("ssh_config: what is refused, reported or scoped", () => {
    it("T3-07: ProxyCommand refuses the host in exec_on_host and get_host_details (never a direct dial)", async () => {
      const h = compose({ providers: [{ kind: "ssh_config", files: [file("ssh_config", `Host behind-bastion\n  HostName 127.0.0.1\n  Port ${b.port}\n  User root\n  ProxyCommand ssh -W %h:%p bastion.example.com\n`)] }] });
      await expect(execOnHost({ host: "behind-bastion", command: "echo reached" }, operator, deps(h))).rejects.toMatchObject({
        code: "ssh_config_error", message: expect.stringContaining("ProxyCommand is not supported, use ProxyJump") as string, hint: expect.stringContaining("ProxyJump") as string,
      });
      const d = await hostDetails({ name: "behind-bastion", probe: true }, details(h));
      expect(d.capabilities).toEqual([]);
      expect(d.record.meta.errors).toContain("ProxyCommand is not supported, use ProxyJump");
      expect(d.probe).toMatchObject({ ran: false, error: expect.stringContaining("ProxyCommand is not supported, use ProxyJump") as string });
      expect(h.executor.connections).toBe(0);
    });

    it("T3-08: StrictHostKeyChecking no / UserKnownHostsFile /dev/null never relax checking: host_key_unknown", async () => {
      const h = compose({
        knownHosts: file("known_hosts", `[127.0.0.1]:${b.port} ${keyOf(b)}\n`),
        providers: [{ kind: "ssh_config", files: [file("ssh_config", `Host lax\n  HostName localhost\n  Port ${b.port}\n  User root\n  StrictHostKeyChecking no\n  UserKnownHostsFile /dev/null\n`)] }],
      });
      expect(await run(h, "lax")).toMatchObject({ code: "host_key_unknown", exit_code: null, stdout: "" });
      expect((await h.inventory.search({ name: "lax" })).records[0]!.meta.warnings).toMatch(/StrictHostKeyChecking is not honoured/);
    });

    it("T3-09: a @cert-authority line holding the server's own key never matches it, and is not reported as a changed key", async () => {
      const providers = [{ kind: "ssh_config", files: [file("ssh_config", `Host ca-host\n  HostName localhost\n  Port ${b.port}\n  User root\n`)] }];
      for (const pattern of [`[localhost]:${b.port}`, "*"]) {
        const h = compose({ providers, knownHosts: file("known_hosts", `@cert-authority ${pattern} ${keyOf(b)}\n`) });
        expect(await run(h, "ca-host"), pattern).toMatchObject({ code: "host_key_unknown", stdout: "" });
      }
    });

    it("T3-10: a port-less entry is not trusted for another port; trust on first use records [host]:port", async () => {
      const providers = [{ kind: "ssh_config", files: [file("ssh_config", `Host tofu-host\n  HostName localhost\n  Port ${b.port}\n  User root\n`)] }];
      const portless = compose({ providers, knownHosts: file("known_hosts", `localhost ${keyOf(b)}\n`) });
      expect(await run(portless, "tofu-host")).toMatchObject({ code: "host_key_unknown" });
      const kh = file("known_hosts", "");
      const tofu = compose({ providers, knownHosts: kh, hostKeys: "tofu" });
      expect(await run(tofu, "tofu-host")).toMatchObject({ stdout: "reached\n", code: null });
      expect(readFileSync(kh, "utf8")).toBe(`[localhost]:${b.port} ${keyOf(b)}\n`);
      const strict = compose({ providers, knownHosts: kh });
      expect(await run(strict, "tofu-host")).toMatchObject({ stdout: "reached\n", code: null });
    });

    it("T3-11: Match exec is never executed (listing, exec, details); the skipped block is reported", async () => {
      const t = mkdtempSync(join(work, "match-"));
      const h = compose({ providers: [{ kind: "ssh_config", files: [file("ssh_config", [
        `Match exec "touch ${t}/m1"`, "  User pwned",
        "Host m11", "  HostName localhost", `  Port ${b.port}`,
        `Match host localhost exec "touch ${t}/m2"`, "  Port 1",
        "Host *", "  User root", "",
      ].join("\n"))] }] });
      const s = await h.inventory.search({ refresh: true });
      expect(s.records.find((r) => r.name === "m11")!.meta.warnings).toMatch(/Match exec is not evaluated by hostgate .*skipped/);
      expect(await run(h, "m11")).toMatchObject({ stdout: "reached\n", code: null });
      const d = await hostDetails({ name: "m11", probe: true }, details(h));
      expect(d.probe).toMatchObject({ ran: true, error: null });
      expect(d.record.meta.warnings).toMatch(/Match exec is not evaluated/);
      expect(existsSync(join(t, "m1"))).toBe(false);
      expect(existsSync(join(t, "m2"))).toBe(false);
    });

    it("an unparsable Include fails only the hosts it could affect, naming the file; the other aliases run", async () => {
      const broken = file("broken.conf", 'Host inner\n  User "unterminated\n');
      const h = compose({ providers: [{ kind: "ssh_config", files: [file("ssh_config", [
        "Host web*", `  Include ${broken}`,
        "Host web1 ok1", "  HostName 127.0.0.1", `  Port ${b.port}`, "  User root", "",
      ].join("\n"))] }] });
      await expect(execOnHost({ host: "web1", command: "id -un" }, operator, deps(h))).rejects.toMatchObject({ code: "ssh_config_error", message: expect.stringContaining(broken) as string });
      expect(await run(h, "ok1")).toMatchObject({ stdout: "reached\n", code: null });
      const s = await h.inventory.search({});
      expect(s.errors).toEqual([]);
      expect(s.records.map((r) => [r.name, r.meta.errors ?? null])).toEqual([["web1", expect.stringContaining("Unexpected line break")], ["ok1", null]]);
      expect(h.inventory.listBackends().backends[0]!.notes.join("\n")).toContain(broken);
    });

    it("# hostgate: tags= makes the shipped policies apply to an ssh_config host (prod changes need approval; untagged: no permit)", async () => {
      const h = compose({ providers: [{ kind: "ssh_config", files: [file("ssh_config", [
        "Host web-prod", "  # hostgate: tags=prod,web", "  HostName 127.0.0.1", `  Port ${b.port}`, "  User root",
        "Host web-plain", "  HostName localhost", `  Port ${b.port}`, "  User root", "",
      ].join("\n"))] }] });
      expect((await h.inventory.search({ tags: "web" })).records.map((r) => [r.name, r.tags])).toEqual([["web-prod", ["prod", "web"]]]);
      const marker = join(work, "changed");
      await expect(execOnHost({ host: "web-prod", command: `touch ${marker}` }, operator, deps(h))).rejects.toMatchObject({ code: "refused", details: { decision: "require_approval" } });
      // web-plain is the same machine (localhost → 127.0.0.1, same port): it is judged as web-prod
      await expect(execOnHost({ host: "web-plain", command: `touch ${marker}` }, operator, deps(h))).rejects.toMatchObject({ code: "refused", details: { decision: "require_approval" } });
      expect(existsSync(marker)).toBe(false);
    });
  });

  it("the name label never replaces the real host in audit entries", async () => {
    const h = compose({ providers: [{ kind: "static", name: "inv", hosts: [{ name: "lab-b", address: "127.0.0.1", port: b.port, user: "root", tags: ["lab"] }] }] });
    const r = await run(h, "lab-b", "echo reached", "card1");
    expect(r).toMatchObject({ host: "card1", stdout: "reached\n" });
    expect(lastAudit("exec.result").results).toEqual([expect.objectContaining({ host: "lab-b", label: "card1", ip: "127.0.0.1" })]);
    expect(lastAudit("exec.decision")).toMatchObject({ hosts: ["lab-b"] });
  });
});
