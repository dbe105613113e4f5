/**
 * Issue 19 on a host whose PID 1 is systemd and which has no bubblewrap (the usual server): unapproved
 * commands run as a systemd-run transient service as nobody with the Protect*= directives. The host
 * is a real systemd booted with systemd-nspawn (test/peers/nspawn.ts). The transport into it is nsenter, a
 * stand-in for SSH (its rootfs has no sshd): the probe, the check run, the wrapper and the kill line are the
 * same shell lines the SSH executor would send, run by the container's own /bin/sh as root.
 * The service runs as nobody, not DynamicUser=yes: with Debian's nsswitch.conf (no nss-systemd) dbus-daemon
 * drops a dynamic uid's connection, which broke `systemctl status` inside (found by the diagnostics test).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalExecutor } from "../../src/adapters/exec-local.ts";
import { Sandboxes } from "../../src/app/sandbox.ts";
import { confine, type HostSandbox, type NetworkGrant } from "../../src/core/sandbox/confine.ts";
import { shellJoin } from "../../src/core/inventory/target.ts";
import type { ExecOutcome, Executor } from "../../src/ports/executor.ts";
import { nspawnPrereqs, startNspawn, type NspawnPeer } from "../peers/nspawn.ts";
import { REQUIRE_PEERS } from "../peers/proc.ts";

const missing = nspawnPrereqs();
if (missing && REQUIRE_PEERS) throw new Error(`systemd container required: ${missing}`);
if (missing) process.stderr.write(`SKIPPING systemd-run sandbox tests: ${missing}\n`);

/** Runs each command line with the container's /bin/sh, as root or (prefix) as another login. */
function containerExecutor(peer: NspawnPeer, login: string[] = []): Executor {
  const local = new LocalExecutor();
  return { exec: (req) => local.exec({ ...req, command: shellJoin(["nsenter", "-t", String(peer.leaderPid), "-a", ...login, "/bin/sh", "-c", req.command]) }) };
}

describe.skipIf(missing !== null)("systemd-run sandbox on a systemd host without bubblewrap (issue 19)", () => {
  let peer: NspawnPeer;
  let ex: Executor;
  let sb: HostSandbox;
  const run = (cmd: string, network: NetworkGrant = "none", timeout_sec = 20, run_id = `t${Math.random().toString(36).slice(2, 8)}`): Promise<ExecOutcome> => {
    const w = confine(["sh", "-c", cmd], sb, { network, timeout_sec, run_id });
    return ex.exec({ target: { host: "container", port: 0 }, command: w.command, kill_command: w.kill_command, timeout_ms: timeout_sec * 1000, max_output_bytes: 65_536 });
  };

  /** Whether a `sleep <n>` process runs in the container (no procps there: grep over /proc; `n` holds a bracket so the pattern cannot match its own command line). */
  const running = (n: string): boolean => peer.exec(["sh", "-c", `grep -als 'sleep.${n}' /proc/[0-9]*/cmdline`]).status === 0;

  beforeAll(async () => {
    peer = await startNspawn();
    ex = containerExecutor(peer);
    sb = await new Sandboxes().forHost({ key: "container", executor: ex, target: { host: "container", port: 0 } });
  });
  afterAll(async () => { await peer?.stop(); });

  it("the probe finds systemd-run and its check run passes", () => {
    expect(sb.mechanism).toBe("systemd-run");
    expect(sb.summary).toMatch(/transient service as uid 65534/);
    expect(sb.identity).toMatch(/^nobody \(uid 65534/);
  });

  it("runs unprivileged on a read-only system with homes and shadow out of reach", async () => {
    const r = await run("id -u; cat /etc/shadow; ls /root; touch /etc/hg-x; echo s > /tmp/s && cat /tmp/s");
    const [uid] = r.stdout.split("\n");
    expect(Number(uid)).toBeGreaterThan(0);
    expect(r.stdout).not.toMatch(/^root:/m);
    expect(r.stderr).toMatch(/shadow: (Permission denied|No such file)/);
    expect(r.stderr).toMatch(/hg-x': Read-only file system/);
    expect(r.stdout).toContain("s\n");
    expect(peer.exec(["test", "-e", "/etc/hg-x"]).status).toBe(1);
  });

  it("everyday diagnostics work inside: systemctl status over D-Bus, journalctl through systemd-journal", async () => {
    const status = await run("systemctl status systemd-journald --no-pager 2>&1 | head -5");
    expect(status.stdout, status.stdout).toMatch(/systemd-journald\.service/);
    expect(status.stdout).toMatch(/Active: active/);
    const journal = await run("journalctl -u systemd-journald --since today --no-pager -n 5");
    expect(journal.stdout + journal.stderr).not.toMatch(/insufficient permissions|No journal files/);
    const df = await run("df -h / && cat /proc/meminfo && ls /var/log"); // no procps in the container
    expect(df.exit_code, df.stderr).toBe(0);
  });

  it("no network unless granted: only Unix and netlink sockets", async () => {
    const none = await run("bash -c 'exec 3<>/dev/tcp/127.0.0.1/9' 2>&1; true");
    expect(none.stdout).toMatch(/Address family not supported|Permission denied/);
    const any = await run("bash -c 'exec 3<>/dev/tcp/127.0.0.1/9' 2>&1; true", "any");
    expect(any.stdout).toMatch(/Connection refused/);
  });

  it("native system calls only, and no kernel keyrings (SystemCallArchitectures=native, SystemCallFilter=, review leftover)", async () => {
    // Before: neither property was passed, so an i386 or x32 system call went around every other filter.
    const id = `t${Math.random().toString(36).slice(2, 8)}`;
    const r = await run(`systemctl show -p SystemCallArchitectures --value hostgate-exec-${id}.service; perl -e '$r = syscall(250, 0, -4, 0); print "keyctl=$r $!\n"'`, "none", 20, id);
    expect(r.stdout, r.stderr).toMatch(/^native\n/);
    expect(r.stdout).toContain("keyctl=-1 Operation not permitted\n");
  });

  it("ends: the unit's processes, setsid children included, go when the command ends or is killed", async () => {
    const r = await run("setsid sleep 991 > /dev/null 2>&1 & echo started");
    expect(r.stdout).toBe("started\n");
    await new Promise((res) => setTimeout(res, 500));
    expect(running("99[1]")).toBe(false);
    const killed = await run("setsid sleep 992 > /dev/null 2>&1 & sleep 60", "none", 2);
    expect(killed.timed_out).toBe(true);
    await new Promise((res) => setTimeout(res, 1500));
    expect(running("99[12]")).toBe(false);
    expect(peer.exec(["sh", "-c", "systemctl list-units --all --no-legend 'hostgate-exec-*' | grep -c . || true"]).stdout.trim()).toBe("0");
  });

  it("hides every other mount of a hidden tree: a bind of /home elsewhere, of hostgate's state, of the whole root (review leftover)", async () => {
    // Planted in the container: files nobody may read through each of these mounts, were they not hidden.
    const plant = peer.exec(["sh", "-c", [
      "mkdir -p /home/alice /var/lib/hostgate /srv/h '/srv/my home' /srv/st /mnt/rootfs",
      "echo alice-secret > /home/alice/notes && echo state-secret > /var/lib/hostgate/key",
      "chmod 755 /home/alice /var/lib/hostgate && chmod 644 /home/alice/notes /var/lib/hostgate/key",
      "mount --bind /home /srv/h && mount --bind /home '/srv/my home' && mount --bind /var/lib/hostgate /srv/st && mount --bind / /mnt/rootfs",
    ].join(" && ")]);
    expect(plant.status).toBe(0);
    const copies = ["/srv/h/alice/notes", "/srv/my home/alice/notes", "/srv/st/key", "/mnt/rootfs/home/alice/notes", "/mnt/rootfs/var/lib/hostgate/key"];
    try {
      // Outside the sandbox, as nobody, every copy is readable: without hiding, the command would read them.
      const outside = peer.exec(["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups", "cat", ...copies]);
      expect(outside.stdout).toBe("alice-secret\nalice-secret\nstate-secret\nalice-secret\nstate-secret\n");
      // A probe after the mounts were made sees them (the probe's mount table, as for bubblewrap).
      const s = await new Sandboxes().forHost({ key: "container-binds", executor: ex, target: { host: "container", port: 0 } });
      expect(s.mechanism).toBe("systemd-run");
      const w = confine(["sh", "-c", `for f in ${copies.map((c) => `'${c}'`).join(" ")}; do cat "$f"; done; ls /srv/h /mnt/rootfs/home; echo listed`], s, { network: "none", timeout_sec: 20, run_id: `t${Math.random().toString(36).slice(2, 8)}` });
      const r = await ex.exec({ target: { host: "container", port: 0 }, command: w.command, kill_command: w.kill_command, timeout_ms: 20_000, max_output_bytes: 65_536 });
      // Before: InaccessiblePaths= named only the paths themselves, so all five copies were read.
      expect(r.stdout, r.stderr).not.toMatch(/secret/);
      expect(r.stdout).toMatch(/listed\n$/); // the command ran to its end
      for (const c of copies) expect(r.stderr.replace(/'/g, "")).toContain(`${c}: Permission denied`); // cat quotes a name with a space
      expect(r.stderr).toMatch(/ls: cannot open directory '\/srv\/h': Permission denied/);
    } finally {
      peer.exec(["sh", "-c", "umount /mnt/rootfs /srv/st '/srv/my home' /srv/h"]);
    }
  });

  it("a non-root login without bubblewrap has no sandbox: fail closed", async () => {
    const nobody = containerExecutor(peer, ["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups"]);
    const s = await new Sandboxes().forHost({ key: "container-nobody", executor: nobody, target: { host: "container", port: 0 } });
    expect(s.mechanism).toBeNull();
    expect(s.summary).toMatch(/systemd-run needs a root login/);
  });
});
