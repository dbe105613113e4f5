// `hostgate doctor --hosts` (issue 20): every inventory host dialed, one report each, on real peers: the nspawn
// systemd container over SSH with its four logins, a loopback sshd whose key is in no known_hosts, and a closed port.
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkHosts, hostLines } from "../../src/cli/doctor-hosts.ts";
import { ConfigSchema } from "../../src/config/schema.ts";
import { nspawnSshPrereqs, startNspawnSsh, type NspawnSshPeer } from "../peers/nspawn-ssh.ts";
import { REQUIRE_PEERS } from "../peers/proc.ts";
import { startSshd } from "../peers/sshd.ts";

const missing = nspawnSshPrereqs();
if (missing !== null && !REQUIRE_PEERS) console.warn(`\n*** SKIPPING doctor-hosts tests: ${missing} (set HOSTGATE_REQUIRE_PEERS=1 to fail instead) ***\n`);
const suite = missing === null || REQUIRE_PEERS ? describe : describe.skip;

/** A loopback port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => { s.listen(0, "127.0.0.1", resolve); });
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((resolve) => { s.close(() => { resolve(); }); });
  return port;
}

suite("doctor --hosts dials every inventory host (issue 20)", () => {
  let peer: NspawnSshPeer;
  let stranger: Awaited<ReturnType<typeof startSshd>>;
  let work: string;
  let down: number;

  beforeAll(async () => {
    if (missing !== null) throw new Error(`peer unavailable: ${missing}`);
    [peer, stranger, down] = await Promise.all([startNspawnSsh(), startSshd(), closedPort()]);
    work = mkdtempSync(join(tmpdir(), "hg-doctor-hosts-"));
  }, 120_000);
  afterAll(async () => {
    await stranger?.stop();
    await peer?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  const config = () => {
    const at = { address: peer.ip, port: peer.port };
    return ConfigSchema.parse({
      backend: { type: "mock" },
      state: { dir: work },
      exec: { known_hosts: [peer.knownHosts], identity_files: [peer.clientKey, stranger.clientKey], use_agent: false, user: "root", host_keys: "tofu", connect_timeout_ms: 10_000 },
      inventory: {
        providers: [{
          kind: "static", name: "lab", cache_ttl: 0, tags: ["lab"],
          hosts: [
            { name: "box-root", ...at, user: "root" },
            { name: "box", ...at, user: "deploy", become: "sudo" },
            { name: "box-asker", ...at, user: "asker", become: "sudo" },
            { name: "box-plain", ...at, user: "plain" },
            { name: "stranger", address: "127.0.0.1", port: stranger.port, user: "root" },
            { name: "down", address: "127.0.0.1", port: down, user: "root" },
          ],
        }],
      },
    });
  };

  it("T20-doctor-hosts: per host reachable, host key, login, root, systemd path and family; a down host, an unknown key and a password sudo each get their own line", async () => {
    const reports = await checkHosts(config(), { concurrency: 3, timeoutMs: 30_000 });
    const by = new Map(reports.map((r) => [r.host, r]));
    expect(reports.map((r) => r.host)).toEqual(["box-root", "box", "box-asker", "box-plain", "stranger", "down"]);
    expect(by.get("box-root")).toMatchObject({ reachable: true, host_key: "known", login: "root", root: "root", systemd: "dbus_bridge", family: "debian", error: null });
    expect(by.get("box")).toMatchObject({ reachable: true, login: "deploy", root: "sudo", systemd: "dbus_bridge", family: "debian", error: null });
    expect(by.get("box-asker")).toMatchObject({ reachable: true, login: "asker", root: "sudo_password_required", error: { code: "sudo_password_required" } });
    expect(by.get("box-plain")).toMatchObject({ reachable: true, login: "plain", root: "privilege_unavailable" });
    // host_keys: tofu in the config, yet doctor records no key: the stranger's stays unknown.
    expect(by.get("stranger")).toMatchObject({ reachable: false, host_key: "unknown", login: null, error: { code: "host_key_unknown" } });
    expect(by.get("down")).toMatchObject({ reachable: false, host_key: null, error: { code: "unreachable" } });
    const lines = new Map(hostLines(reports).map((l) => [l.name, l]));
    expect(lines.get("box-root")).toMatchObject({ section: "hosts", status: "ok" });
    expect(lines.get("box-asker")).toMatchObject({ status: "warn", fix: expect.stringMatching(/NOPASSWD/) as unknown });
    expect(lines.get("down")).toMatchObject({ status: "fail", detail: expect.stringMatching(/^not reachable/) as unknown });
  }, 120_000);

  it("a host that hangs is cut at its own timeout, the others still answer", async () => {
    // A listener that accepts and never speaks SSH: the dial waits for a banner that never comes.
    const mute = createServer(() => undefined);
    await new Promise<void>((resolve) => { mute.listen(0, "127.0.0.1", resolve); });
    try {
      const c = config();
      const lab = c.inventory.providers![0]!;
      if (lab.kind !== "static") throw new Error("the lab inventory is static");
      lab.hosts = lab.hosts.filter((x) => x.name === "box-root").concat([{ ...lab.hosts[0]!, name: "mute", address: "127.0.0.1", port: (mute.address() as { port: number }).port }]);
      const t = Date.now();
      const reports = await checkHosts(c, { timeoutMs: 3000 });
      expect(Date.now() - t).toBeLessThan(9000);
      expect(reports.find((r) => r.host === "mute")).toMatchObject({ reachable: false, error: { code: "timeout" } });
      expect(reports.find((r) => r.host === "box-root")).toMatchObject({ reachable: true, root: "root" });
    } finally {
      mute.close();
    }
  }, 60_000);
});
