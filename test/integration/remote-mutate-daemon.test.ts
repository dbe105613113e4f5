/**
 * Issue 20, remote mutations made honest, through the composed daemon on a real PID-1 systemd container reached by
 * real sshd (the nspawn peer): the audit entries of a remote change name the SSH user, the host key fingerprint and
 * whether sudo was used; a plan on a login that cannot get root without a password is refused before anyone could
 * approve it (S016); a file changed between approve and execute is plan_changed with nothing written; a second
 * preview after an executed change has nothing left to do; doctor and describe say each contacted host's systemd path.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { SshHostMutator } from "../../src/adapters/host-mutator-ssh.ts";
import { ConfigSchema } from "../../src/config/schema.ts";
import { composeDaemon, type ComposedDaemon } from "../../src/daemon/compose.ts";
import { nspawnSshPrereqs, startNspawnSsh, type NspawnSshPeer } from "../peers/nspawn-ssh.ts";
import { REQUIRE_PEERS } from "../peers/proc.ts";
import { PEER_UNITS } from "../peers/test-units.ts";
import { writeThroughApproval } from "../helpers/plan-approve-execute.ts";
import { testApprover } from "../support/approver.ts";

const missing = nspawnSshPrereqs();
if (missing !== null && !REQUIRE_PEERS) console.warn(`\n*** SKIPPING remote-mutate-daemon tests: ${missing} (set HOSTGATE_REQUIRE_PEERS=1 to fail instead) ***\n`);
const suite = missing === null || REQUIRE_PEERS ? describe : describe.skip;

interface Via { ssh_user: string; host_key: string; host_key_type: string; sudo: boolean }

suite("remote mutations through the daemon on an nspawn systemd host over SSH (issue 20)", () => {
  let peer: NspawnSshPeer;
  let work: string;
  let d: ComposedDaemon;
  /** The container's host key fingerprint as OpenSSH prints it. */
  let keygen: string;
  const inside = (p: string): string => `${peer.container.fileRoot}${p}`;
  const sh = (script: string): string => {
    const r = peer.container.exec(["sh", "-c", script]);
    if (r.status !== 0) throw new Error(`${script} failed in the container`);
    return r.stdout;
  };
  const agent = () => d.service.agent("remote-mutate");
  const entries = (kind: string, tx: string) => d.service.deps.audit().query({ kind, limit: 10_000 }).map((e) => JSON.parse(e.payload) as { transaction_id?: string; via?: Via; code?: string }).filter((p) => p.transaction_id === tx);

  beforeAll(async () => {
    if (missing !== null) throw new Error(`peer unavailable: ${missing}`);
    peer = await startNspawnSsh();
    keygen = execFileSync("ssh-keygen", ["-lf", join(peer.dir, "host_key.pub")], { encoding: "utf8" }).split(" ")[1]!;
    work = mkdtempSync(join(tmpdir(), "hg-remote-mutate-daemon-"));
    const policies = mkdtempSync(join(work, "policies-"));
    writeFileSync(join(policies, "read.cedar"), `@id("read-lab")\npermit (principal, action == Hostgate::Action::"read", resource) when { resource.tags.contains("lab") };\n`);
    process.env.HOSTGATE_STATE_DIR = mkdtempSync(join(work, "state-"));
    const at = { address: peer.ip, port: peer.port };
    const config = ConfigSchema.parse({
      backend: { type: "mock" },
      policy: { dir: policies },
      exec: { known_hosts: [peer.knownHosts], identity_files: [peer.clientKey], use_agent: false, user: "root", host_keys: "strict", connect_timeout_ms: 10_000 },
      inventory: {
        providers: [{
          kind: "static", name: "lab", cache_ttl: 0, tags: ["lab"],
          hosts: [
            { name: "box", ...at, user: "deploy", become: "sudo" },
            { name: "box-root", ...at, user: "root" },
            { name: "box-asker", ...at, user: "asker", become: "sudo" },
            { name: "box-plain", ...at, user: "plain" },
            { name: "box-fallback", ...at, user: "plain" },
          ],
        }],
      },
    });
    d = await composeDaemon(config, { mode: "embedded", announce: () => undefined });
    delete process.env.HOSTGATE_STATE_DIR;
  }, 120_000);
  afterAll(async () => {
    await d?.close();
    await peer?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  async function planWrite(host: string, path: string, content: string) {
    return agent().call("plan", { host, steps: [{ action: "WriteFile", params: { path, content } }] });
  }

  it("doctor and describe before any host is contacted: no host listed, the others 'not yet contacted', nothing dialled", async () => {
    const doc = await agent().call("doctor", {});
    if (!doc.ok) throw new Error(doc.error.message);
    expect(doc.value.checks.find((c) => c.name === "remote systemd")?.detail).toMatch(/^no inventory host contacted yet; every other inventory host: not yet contacted/);
    const desc = await agent().call("describe", {});
    if (!desc.ok) throw new Error(desc.error.message);
    expect(desc.value.hosts).toBeUndefined();
    expect(d.service.deps.hosts.cached()).toEqual([]);
  });

  it("a remote WriteFile's execute.intent and execute.result name the SSH user, the host key (ssh-keygen -lf) and sudo: true for deploy with sudo, false for root", async () => {
    const tag = `${process.pid}-${Date.now()}`;
    for (const [host, user, sudo] of [["box", "deploy", true], ["box-root", "root", false]] as const) {
      const path = `/etc/hg-via-${host}-${tag}.conf`;
      const r = await writeThroughApproval(d.service, "remote-mutate", host, path, `by ${user}\n`) as { status: string; transaction_id: string };
      expect(r.status).toBe("succeeded");
      expect(readFileSync(inside(path), "utf8")).toBe(`by ${user}\n`);
      const via: Via = { ssh_user: user, host_key: keygen, host_key_type: "ssh-ed25519", sudo };
      expect(entries("execute.intent", r.transaction_id).map((p) => p.via)).toEqual([via]);
      expect(entries("execute.result", r.transaction_id).map((p) => p.via)).toEqual([via]);
    }
    expect(keygen).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
  });

  it("S016: plan on asker (sudo -n wants a password) is refused sudo_password_required with the NOPASSWD hint, before any preview; nothing is planned", async () => {
    const before = d.service.deps.audit().query({ kind: "plan.created", limit: 10_000 }).length;
    const r = await planWrite("box-asker", "/etc/hg-asker.conf", "x\n");
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toMatchObject({ code: "sudo_password_required", details: { host: "box-asker", login: "asker", actions: ["WriteFile"] } });
    expect(r.error.message).toContain("password");
    expect(r.error.message).toContain("Nothing was planned");
    expect(r.error.hint).toContain("asker ALL=(root) NOPASSWD");
    expect(r.error.hint).toContain("log in as root");
    expect(d.service.deps.audit().query({ kind: "plan.created", limit: 10_000 }).length).toBe(before);
    // RestartService needs root too (the system manager's job through sudo): refused the same way.
    const svc = await agent().call("plan", { host: "box-asker", steps: [{ action: "RestartService", params: { unit: PEER_UNITS.running } }] });
    expect(!svc.ok && svc.error.code).toBe("sudo_password_required");
  });

  it("plain (no sudo, become none) is refused privilege_unavailable in its own words; deploy's plan goes through", async () => {
    const r = await planWrite("box-plain", "/etc/hg-plain.conf", "x\n");
    expect(!r.ok && r.error).toMatchObject({ code: "privilege_unavailable", details: { host: "box-plain", login: "plain" } });
    expect(!r.ok && r.error.message).toContain("reached as plain, not root, and is not configured become: sudo");
    expect(!r.ok && r.error.hint).toContain("become: sudo");
    const ok = await planWrite("box", "/etc/hg-deploy-plan.conf", "x\n");
    expect(ok.ok).toBe(true);
  });

  it("one privilege round trip per plan, not per step: three steps ask once, the next plan within a minute asks not at all", async () => {
    // A fresh context for box-root (its answer from the earlier test would otherwise still be kept).
    d.service.deps.hosts.forget("box-root");
    const entry = await d.service.deps.hosts.resolve("box-root");
    expect(entry.ctx.mutator).toBeInstanceOf(SshHostMutator);
    const count = vi.spyOn(entry.ctx.mutator as unknown as Pick<SshHostMutator, "canBecome">, "canBecome");
    try {
      const steps = [1, 2, 3].map((i) => ({ action: "WriteFile", params: { path: `/etc/hg-three-${i}.conf`, content: `${i}\n` } }));
      const p = await agent().call("plan", { host: "box-root", steps });
      expect(p.ok && p.value.steps.length).toBe(3);
      expect(count).toHaveBeenCalledTimes(1);
      expect((await agent().call("plan", { host: "box-root", steps })).ok).toBe(true);
      expect(count).toHaveBeenCalledTimes(1);
    } finally {
      count.mockRestore();
    }
  });

  it("plan_changed over SSH: the file changed on the host between approve and execute is refused, nothing is written, no intent is audited", async () => {
    const path = `/etc/hg-changed-${process.pid}.conf`;
    sh(`printf 'listen = 80\\n' > ${path}`);
    const p = await planWrite("box", path, "listen = 8080\n");
    if (!p.ok) throw new Error(p.error.message);
    const step = p.value.steps[0]!;
    const a = await d.service.admin("human", testApprover()).call("approve", { transaction_id: step.transaction_id });
    if (!a.ok) throw new Error(a.error.message);
    sh(`printf 'listen = 81\\n' > ${path}`);
    const x = await agent().call("execute", { steps: [{ transaction_id: step.transaction_id, action_name: "WriteFile", params: step.params, approval_receipt: a.value.receipt }] });
    if (!x.ok) throw new Error(x.error.message);
    expect(x.value.results[0]).toMatchObject({ status: "refused", error: { code: "plan_changed" } });
    expect(readFileSync(inside(path), "utf8")).toBe("listen = 81\n");
    expect(entries("execute.intent", step.transaction_id)).toEqual([]);
    expect(entries("execute.refused", step.transaction_id).map((e) => e.code)).toEqual(["plan_changed"]);
  });

  it("T20-privilege-at-execute: the sudoers drop-in removed between approve and execute is refused sudo_password_required before anything is applied; restored, the same receipt executes", async () => {
    const path = `/etc/hg-sudo-gone-${process.pid}.conf`;
    sh(`printf 'a = 1\\n' > ${path}`);
    const p = await planWrite("box", path, "a = 2\n");
    if (!p.ok) throw new Error(p.error.message);
    const step = p.value.steps[0]!;
    const a = await d.service.admin("human", testApprover()).call("approve", { transaction_id: step.transaction_id });
    if (!a.ok) throw new Error(a.error.message);
    const dropIn = inside("/etc/sudoers.d/hostgate-test");
    const rule = readFileSync(dropIn, "utf8");
    // The drop-in goes: deploy has no sudo rule left (plan's answer, kept 60 s, still says yes).
    rmSync(dropIn);
    const run = () => agent().call("execute", { steps: [{ transaction_id: step.transaction_id, action_name: "WriteFile", params: step.params, approval_receipt: a.value.receipt }] });
    try {
      const x = await run();
      if (!x.ok) throw new Error(x.error.message);
      expect(x.value.results[0]).toMatchObject({ status: "refused", error: { code: "sudo_password_required" } });
      const err = (x.value.results[0] as { error: { message: string; hint?: string } }).error;
      expect(err.message).toMatch(/nothing was applied on box, and the receipt was not used/);
      expect(err.hint).toMatch(/NOPASSWD/);
      expect(readFileSync(inside(path), "utf8")).toBe("a = 1\n");
      expect(entries("execute.intent", step.transaction_id)).toEqual([]);
      expect(entries("execute.refused", step.transaction_id).map((e) => e.code)).toEqual(["sudo_password_required"]);
    } finally {
      writeFileSync(dropIn, rule, { mode: 0o440 });
    }
    const y = await run();
    if (!y.ok) throw new Error(y.error.message);
    expect(y.value.results[0]).toMatchObject({ status: "succeeded" });
    expect(readFileSync(inside(path), "utf8")).toBe("a = 2\n");
  });

  it("RestartService executed over SSH restarts the unit (new MainPID); the next preview shows the host's new state, and StartService has nothing left to do", async () => {
    const pid = (): string => sh(`systemctl show -p MainPID --value ${PEER_UNITS.running}`).trim();
    const before = pid();
    const p = await agent().call("plan", { host: "box", steps: [{ action: "RestartService", params: { unit: PEER_UNITS.running } }] });
    if (!p.ok) throw new Error(p.error.message);
    const step = p.value.steps[0]!;
    const a = await d.service.admin("human", testApprover()).call("approve", { transaction_id: step.transaction_id });
    if (!a.ok) throw new Error(a.error.message);
    const x = await agent().call("execute", { steps: [{ transaction_id: step.transaction_id, action_name: "RestartService", params: step.params, approval_receipt: a.value.receipt }] });
    if (!x.ok) throw new Error(x.error.message);
    expect(x.value.results[0]).toMatchObject({ status: "succeeded" });
    const after = pid();
    expect(after).not.toBe(before);
    expect(entries("execute.result", step.transaction_id).map((e) => e.via)).toEqual([{ ssh_user: "deploy", host_key: keygen, host_key_type: "ssh-ed25519", sudo: true }]);
    const again = await agent().call("plan", { host: "box", steps: [{ action: "StartService", params: { unit: PEER_UNITS.running } }] });
    if (!again.ok) throw new Error(again.error.message);
    const shown = await d.service.admin("human", testApprover()).call("show", { transaction_id: again.value.steps[0]!.transaction_id });
    if (!shown.ok) throw new Error(shown.error.message);
    const text = JSON.stringify(shown.value);
    expect(text).toContain("already active; no change expected");
    expect(text).toContain(`main PID ${after}`);
  });

  it("doctor and describe name each contacted host's systemd path: the D-Bus bridge, and the systemctl fallback for a host contacted while the bridge was gone", async () => {
    sh("chmod 0 /usr/bin/systemd-stdio-bridge");
    try {
      const r = await agent().call("query", { action: "ListUnits", args: {}, host: "box-fallback" });
      if (!r.ok) throw new Error(r.error.message);
      expect(JSON.stringify(r.value.data)).toContain(PEER_UNITS.running);
    } finally {
      sh("chmod 0755 /usr/bin/systemd-stdio-bridge");
    }
    const desc = await agent().call("describe", {});
    if (!desc.ok) throw new Error(desc.error.message);
    const hosts = desc.value.hosts ?? [];
    expect(hosts.find((h) => h.host === "box")).toMatchObject({ systemd: "dbus_bridge", family: "debian", capabilities: ["files", "systemd", "mutate", "exec"], detail: expect.stringContaining("systemd-stdio-bridge") as string });
    expect(hosts.find((h) => h.host === "box-fallback")).toMatchObject({ systemd: "systemctl", detail: expect.stringContaining("without systemd-stdio-bridge") as string });
    const doc = await agent().call("doctor", {});
    if (!doc.ok) throw new Error(doc.error.message);
    const line = doc.value.checks.find((c) => c.name === "remote systemd")!;
    expect(line.status).toBe("ok");
    expect(line.detail).toMatch(/box: D-Bus bridge \(systemd \(systemd 25\d/);
    expect(line.detail).toContain("box-fallback: systemctl fallback (systemd");
    expect(line.detail).toContain("every other inventory host: not yet contacted");
  });
});
