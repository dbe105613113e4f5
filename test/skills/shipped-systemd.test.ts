import { cpSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nspawnPrereqs, startNspawn, type NspawnPeer } from "../peers/nspawn.ts";

// The shipped diagnose scripts against a real PID-1 systemd (nspawn, Debian 12 rootfs): a unit in a
// restart loop and a failed unit, read as root and as an unprivileged user inside the container.
const missing = nspawnPrereqs();
const REQUIRE_PEERS = process.env.HOSTGATE_REQUIRE_PEERS === "1";

describe.skipIf(missing !== null && !REQUIRE_PEERS)(`shipped skills on a real systemd${missing ? ` (SKIPPED: ${missing})` : ""}`, () => {
  let peer: NspawnPeer;
  beforeAll(async () => {
    if (missing) throw new Error(`peer unavailable: ${missing}`);
    peer = await startNspawn();
    cpSync(resolve(import.meta.dirname, "../../skills"), join(peer.fileRoot, "opt/skills"), { recursive: true });
    writeFileSync(join(peer.fileRoot, "etc/systemd/system/hg-flap.service"), "[Unit]\nDescription=flaps\nStartLimitIntervalSec=0\n\n[Service]\nExecStart=/bin/sh -c 'echo starting; sleep 0.2; exit 3'\nRestart=always\nRestartSec=0.3\n");
    writeFileSync(join(peer.fileRoot, "etc/systemd/system/hg-broken.service"), "[Unit]\nDescription=fails once\n\n[Service]\nType=oneshot\nExecStart=/bin/sh -c 'echo cannot open /etc/hg-broken.conf >&2; exit 1'\n");
    peer.exec(["systemctl", "daemon-reload"]);
    peer.exec(["systemctl", "start", "--no-block", "hg-flap.service"]);
    peer.exec(["systemctl", "start", "hg-broken.service"]);
    // Let the loop go round a few times.
    for (let i = 0; i < 50; i++) {
      const n = Number(peer.exec(["systemctl", "show", "-p", "NRestarts", "--value", "hg-flap.service"]).stdout.trim());
      if (n >= 3) break;
      await new Promise((r) => setTimeout(r, 200));
    }
  }, 120_000);
  afterAll(async () => { await peer?.stop(); });

  it("service-flapping: restart count, exit status and the loop's journal lines", () => {
    const r = peer.exec(["bash", "/opt/skills/service-flapping/scripts/diagnose.sh", "hg-flap"]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/NRestarts=[3-9]|NRestarts=\d\d/);
    expect(r.stdout).toMatch(/last exit: exited with status 3|last exit \(journal\): .*code=exited, status=3/);
    expect(r.stdout).toMatch(/Scheduled restart job|Main process exited/);
    const list = peer.exec(["bash", "/opt/skills/service-flapping/scripts/diagnose.sh"]);
    expect(list.stdout).toMatch(/hg-flap\.service\s+NRestarts=\d+/);
  });

  it("failed-boot-unit: lists the failed unit with its result and log line", () => {
    const r = peer.exec(["bash", "/opt/skills/failed-boot-unit/scripts/diagnose.sh"]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/== hg-broken\.service ==/);
    expect(r.stdout).toMatch(/Result=exit-code/);
    expect(r.stdout).toMatch(/cannot open \/etc\/hg-broken\.conf/);
  });

  it("every script finishes as an unprivileged user inside the container", () => {
    for (const [name, args] of [["service-flapping", ["hg-flap"]], ["failed-boot-unit", []], ["memory-pressure", ["--days", "1"]], ["runaway-log-growth", ["--interval", "1"]], ["disk-full", ["/opt/skills"]], ["certificate-expiry", []]] as const) {
      const r = peer.exec(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "bash", `/opt/skills/${name}/scripts/diagnose.sh`, ...args]);
      expect(r.status, `${name}: ${r.stdout.slice(-400)}`).toBe(0);
      expect(r.stdout, name).toMatch(/not running as root|==|openssl is not installed/);
    }
  });
});
