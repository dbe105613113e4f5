/**
 * Issue 20, the wiring: a composed daemon with NO remoteContexts option builds an inventory host's typed context
 * over SSH (daemon/remote-contexts.ts) on the hosts feature's own SshPool. A real sshd on loopback (root login,
 * this machine seen over SSH), a static inventory pointing at it, real cedar policies, the in-process client the
 * MCP front uses.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigSchema } from "../../src/config/schema.ts";
import { HostgateError } from "../../src/core/errors.ts";
import { composeDaemon, type ComposedDaemon } from "../../src/daemon/compose.ts";
import type { QueryValue } from "../../src/ipc/protocol.ts";
import { peerMissing } from "../helpers/peers.ts";
import { sshdPrereqs, startSshd, type SshdPeer } from "../peers/sshd.ts";
import { writeThroughApproval } from "../helpers/plan-approve-execute.ts";

const skip = peerMissing("SSH contexts wired into the daemon", sshdPrereqs());

const POLICY = `@id("read-lab")\n@reason("lab hosts may be read")\npermit (principal, action == Hostgate::Action::"read", resource) when { resource.tags.contains("lab") };\n`;

describe.skipIf(skip)("inventory hosts get their typed ports over SSH by default (issue 20)", () => {
  let peer: SshdPeer;
  let noSftp: SshdPeer;
  let work: string;
  const open: ComposedDaemon[] = [];

  beforeAll(async () => {
    peer = await startSshd();
    noSftp = await startSshd({ sftp: false });
    work = mkdtempSync(join(tmpdir(), "hg-remote-ctx-"));
  }, 30_000);
  afterAll(async () => {
    for (const d of open) await d.close();
    await peer?.stop();
    await noSftp?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  async function daemon(clock?: { now: () => number }): Promise<ComposedDaemon> {
    const policies = mkdtempSync(join(work, "policies-"));
    writeFileSync(join(policies, "read.cedar"), POLICY);
    const pub = (p: SshdPeer) => readFileSync(join(p.dir, "host_key.pub"), "utf8").split(" ").slice(0, 2).join(" ");
    const knownHosts = join(work, "known_hosts");
    writeFileSync(knownHosts, `[127.0.0.1]:${peer.port} ${pub(peer)}\n[127.0.0.1]:${noSftp.port} ${pub(noSftp)}\n`);
    process.env.HOSTGATE_STATE_DIR = mkdtempSync(join(work, "state-"));
    const config = ConfigSchema.parse({
      backend: { type: "mock" },
      policy: { dir: policies },
      exec: { known_hosts: [knownHosts], identity_files: [peer.clientKey, noSftp.clientKey], use_agent: false, user: "root", host_keys: "strict" },
      inventory: {
        providers: [
          { kind: "static", name: "lab", cache_ttl: 0, tags: ["lab"], hosts: [{ name: "loop", address: "127.0.0.1", port: peer.port }, { name: "nosftp", address: "127.0.0.1", port: noSftp.port }] },
          { kind: "static", name: "other", cache_ttl: 0, hosts: [{ name: "loop-untagged", address: "127.0.0.2", port: peer.port }] },
        ],
      },
    });
    const d = await composeDaemon(config, { mode: "embedded", announce: () => undefined, ...(clock ? { clock } : {}) });
    delete process.env.HOSTGATE_STATE_DIR;
    open.push(d);
    return d;
  }

  async function query(d: ComposedDaemon, params: Record<string, unknown>): Promise<QueryValue> {
    const r = await d.service.agent("remote-ctx").call("query", params as never);
    if (!r.ok) throw new HostgateError(r.error.code as never, r.error.message, { ...(r.error.hint ? { hint: r.error.hint } : {}), ...(r.error.details ? { details: r.error.details } : {}) });
    return r.value;
  }

  it("query get_memory_usage { host } reads the host over SSH: provenance names the host, totals equal the local read; the SSH context shares exec_on_host's pool", async () => {
    const d = await daemon();
    const remote = await query(d, { action: "GetMemoryUsage", args: {}, host: "loop" });
    const local = await query(d, { action: "GetMemoryUsage", args: {} });
    expect(remote.meta).toMatchObject({ host: "loop", action: "GetMemoryUsage" });
    expect(local.meta.host).toBe("local");
    // The loopback sshd is this machine: the totals (not the moving counters) are the same.
    const totals = (v: QueryValue) => { const m = v.data as Record<string, number>; return [m.total_bytes, m.swap_total_bytes]; };
    expect(totals(remote)).toEqual(totals(local));
    expect((remote.data as { total_bytes: number }).total_bytes).toBeGreaterThan(0);
    expect(d.service.deps.hosts.cached()).toEqual(["loop"]);
    // One pooled connection serves the typed ports: the SSH executor (exec_on_host's) counts it.
    const f = await d.service.deps.hostsFeature!();
    expect((f.executor as unknown as { connections: number }).connections).toBe(1);
    // A second read reuses the cached context and the connection.
    await query(d, { action: "GetMemoryUsage", args: {}, host: "loop" });
    expect((f.executor as unknown as { connections: number }).connections).toBe(1);
  });

  it("without a permit for the host (an untagged entry, another machine) the read is refused before the host is dialed", async () => {
    const d = await daemon();
    const err = await query(d, { action: "GetMemoryUsage", args: {}, host: "loop-untagged" }).catch((e: unknown) => e as HostgateError);
    expect(err).toMatchObject({ code: "refused" });
    expect(d.service.deps.hosts.cached()).toEqual([]);
    const f = await d.service.deps.hostsFeature!();
    expect((f.executor as unknown as { connections: number }).connections).toBe(0);
  });

  it("WriteFile { host } over SSH: plan → approve (admin) → execute writes the file on the host; a second plan has nothing left to do", async () => {
    const d = await daemon();
    const dir = mkdtempSync(join(work, "write-"));
    const path = join(dir, "hg-wired.conf");
    const agent = d.service.agent("remote-ctx");
    expect(await writeThroughApproval(d.service, "remote-ctx", "loop", path, "listen = 80\n")).toMatchObject({ status: "succeeded" });
    expect(readFileSync(path, "utf8")).toBe("listen = 80\n");
    const again = await agent.call("plan", { host: "loop", steps: [{ action: "WriteFile", params: { path, content: "listen = 80\n" } }] });
    if (!again.ok) throw new Error(again.error.message);
    // What the approver is shown for it (`hostgate approve`): the host's real file, nothing to change.
    const shown = await d.service.admin("human").call("show", { transaction_id: again.value.steps[0]!.transaction_id });
    if (!shown.ok) throw new Error(shown.error.message);
    expect(JSON.stringify(shown.value)).toContain("(content unchanged)");
    expect(JSON.stringify(shown.value)).toContain("Replace");
  });

  it("a host whose sshd refuses SFTP: typed reads are refused unavailable naming SFTP and the fix; the host still offers exec", async () => {
    const d = await daemon();
    const err = await query(d, { action: "GetMemoryUsage", args: {}, host: "nosftp" }).catch((e: unknown) => e as HostgateError);
    expect(err).toMatchObject({ code: "unavailable", details: { offered: ["exec"], missing: ["files"] } });
    expect((err as HostgateError).message).toContain("SFTP");
    expect((err as HostgateError).message).toContain("Subsystem sftp");
    const entry = await d.service.deps.hosts.resolve("nosftp");
    expect(entry.ctx.capabilities).toEqual(["exec"]);
    expect(entry.ctx.remote?.name).toBe("nosftp");
  });

  it("doctor and describe say a host without systemd has none, and a host whose typed ports failed is unknown with why (issue 20)", async () => {
    const d = await daemon();
    await query(d, { action: "GetMemoryUsage", args: {}, host: "loop" });
    await d.service.deps.hosts.resolve("nosftp");
    const pooled = (): Promise<number> => d.service.deps.hostsFeature!().then((f) => (f.executor as unknown as { connections: number }).connections);
    const dialled = await pooled();
    const desc = await d.service.agent("remote-ctx").call("describe", {});
    if (!desc.ok) throw new Error(desc.error.message);
    expect(desc.value.hosts).toEqual([
      { host: "loop", hostname: expect.any(String) as string, family: expect.any(String) as string, capabilities: ["files", "mutate", "exec"], systemd: "none", detail: "PID 1 on loop is not systemd (no /run/systemd/system)" },
      { host: "nosftp", hostname: "nosftp", family: "other", capabilities: ["exec"], systemd: "unknown", detail: expect.stringContaining("SFTP") as string },
    ]);
    const doc = await d.service.agent("remote-ctx").call("doctor", {});
    if (!doc.ok) throw new Error(doc.error.message);
    const line = doc.value.checks.find((c) => c.name === "remote systemd")!.detail;
    expect(line).toMatch(/^loop: none \(PID 1 on loop is not systemd \(no \/run\/systemd\/system\)\); nosftp: unknown \(Its typed ports could not be built: .*SFTP.*\); every other inventory host: not yet contacted/);
    // describe and doctor dialled nothing: still the two connections the calls above opened.
    expect(dialled).toBe(2);
    expect(await pooled()).toBe(2);
  });

  it("close() drops the host contexts", async () => {
    const d = await daemon();
    await query(d, { action: "GetMemoryUsage", args: {}, host: "loop" });
    expect(d.service.deps.hosts.cached()).toEqual(["loop"]);
    await d.close();
    expect(d.service.deps.hosts.cached()).toEqual([]);
  });

  // Last: it turns SFTP on in the nosftp peer.
  it("an exec-only fallback context is retried after 60 s (fake clock): the host, fixed meanwhile, then gets its full typed context", async () => {
    let t = Date.parse("2026-01-01T00:00:00Z");
    const d = await daemon({ now: () => t });
    const first = await d.service.deps.hosts.resolve("nosftp");
    expect(first.ctx.capabilities).toEqual(["exec"]);
    // The host is fixed: its sshd now serves SFTP (SIGHUP: sshd re-executes itself with the new configuration).
    writeFileSync(join(noSftp.dir, "sshd_config"), `${readFileSync(join(noSftp.dir, "sshd_config"), "utf8")}Subsystem sftp internal-sftp\n`);
    process.kill(noSftp.pid, "SIGHUP");
    await new Promise((r) => setTimeout(r, 500));
    t += 59_000;
    expect(await d.service.deps.hosts.resolve("nosftp")).toBe(first);
    // The pool's own idle close (60 s) would have ended the old session by now; end it here.
    ((await d.service.deps.hostsFeature!()).executor as unknown as { pool: { close(): void } }).pool.close();
    t += 1_000;
    const again = await d.service.deps.hosts.resolve("nosftp");
    expect(again).not.toBe(first);
    expect(again.ctx.capabilities).toEqual(["files", "mutate", "exec"]);
    const mem = await query(d, { action: "GetMemoryUsage", args: {}, host: "nosftp" });
    expect((mem.data as { total_bytes: number }).total_bytes).toBeGreaterThan(0);
    // A full context is kept by generation, not by time.
    t += 3_600_000;
    expect(await d.service.deps.hosts.resolve("nosftp")).toBe(again);
  });
});
