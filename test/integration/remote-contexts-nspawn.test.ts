/**
 * Issue 20, the wiring end to end on a real PID-1 systemd host: a composed daemon (no remoteContexts option) and a
 * static inventory entry for an nspawn container reachable over SSH as `deploy` with `become: sudo` (from the
 * inventory). WriteFile planned, approved (admin) and executed there; the second plan has nothing left to do;
 * ListUnits answers through the container's own manager (remote D-Bus).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigSchema } from "../../src/config/schema.ts";
import { composeDaemon, type ComposedDaemon } from "../../src/daemon/compose.ts";
import { nspawnSshPrereqs, startNspawnSsh, type NspawnSshPeer } from "../peers/nspawn-ssh.ts";
import { REQUIRE_PEERS } from "../peers/proc.ts";
import { writeThroughApproval } from "../helpers/plan-approve-execute.ts";

const missing = nspawnSshPrereqs();
if (missing !== null && !REQUIRE_PEERS) console.warn(`\n*** SKIPPING remote-contexts-nspawn tests: ${missing} (set HOSTGATE_REQUIRE_PEERS=1 to fail instead) ***\n`);
const suite = missing === null || REQUIRE_PEERS ? describe : describe.skip;

suite("typed actions on an nspawn systemd host over SSH, through the composed daemon (issue 20)", () => {
  let peer: NspawnSshPeer;
  let work: string;
  let d: ComposedDaemon;

  beforeAll(async () => {
    if (missing !== null) throw new Error(`peer unavailable: ${missing}`);
    peer = await startNspawnSsh();
    work = mkdtempSync(join(tmpdir(), "hg-remote-ctx-nspawn-"));
    const policies = mkdtempSync(join(work, "policies-"));
    writeFileSync(join(policies, "read.cedar"), `@id("read-lab")\npermit (principal, action == Hostgate::Action::"read", resource) when { resource.tags.contains("lab") };\n`);
    process.env.HOSTGATE_STATE_DIR = mkdtempSync(join(work, "state-"));
    const config = ConfigSchema.parse({
      backend: { type: "mock" },
      policy: { dir: policies },
      exec: { known_hosts: [peer.knownHosts], identity_files: [peer.clientKey], use_agent: false, user: "root", host_keys: "strict", connect_timeout_ms: 10_000 },
      inventory: { providers: [{ kind: "static", name: "lab", cache_ttl: 0, tags: ["lab"], hosts: [{ name: "box", address: peer.ip, port: peer.port, user: "deploy", become: "sudo" }] }] },
    });
    d = await composeDaemon(config, { mode: "embedded", announce: () => undefined });
    delete process.env.HOSTGATE_STATE_DIR;
  }, 120_000);
  afterAll(async () => {
    await d?.close();
    await peer?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("the host's context offers files, systemd and mutate; ListUnits { host } answers from the container's manager", async () => {
    const r = await d.service.agent("nspawn").call("query", { action: "ListUnits", args: {}, host: "box" });
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.meta).toMatchObject({ host: "box", action: "ListUnits" });
    expect(JSON.stringify(r.value.data)).toContain("ssh.service");
    expect((await d.service.deps.hosts.resolve("box")).ctx.capabilities).toEqual(["files", "systemd", "mutate", "exec"]);
  });

  it("WriteFile { host }: plan → approve (admin) → execute writes /etc in the container as root via sudo; the second plan has nothing left to do", async () => {
    const agent = d.service.agent("nspawn");
    const path = `/etc/hg-wired-${process.pid}.conf`;
    expect(await writeThroughApproval(d.service, "nspawn", "box", path, "listen = 80\n")).toMatchObject({ status: "succeeded" });
    expect(readFileSync(`${peer.container.fileRoot}${path}`, "utf8")).toBe("listen = 80\n");
    const owner = peer.container.exec(["stat", "-c", "%U %a", path]);
    expect(owner.stdout.trim()).toBe("root 644");
    const again = await agent.call("plan", { host: "box", steps: [{ action: "WriteFile", params: { path, content: "listen = 80\n" } }] });
    if (!again.ok) throw new Error(again.error.message);
    const shown = await d.service.admin("human").call("show", { transaction_id: again.value.steps[0]!.transaction_id });
    if (!shown.ok) throw new Error(shown.error.message);
    expect(JSON.stringify(shown.value)).toContain("(content unchanged)");
  });
});
