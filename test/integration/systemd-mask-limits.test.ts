// Issue 24 (r24c): MaskUnit, UnmaskUnit, SetUnitResourceLimits and DaemonReload, previewed then applied on a real
// PID-1 systemd (the nspawn container, reached as an SSH host: D-Bus through systemd-stdio-bridge, files and
// writes over SSH), a second preview showing nothing left to do; the refusals; and the reads that need systemd
// (ReadUnitLogsSinceStart, GetTimeSyncStatus, GetJournalDiskUsage, ListRoutes, GetDnsConfig) compared with the
// container's own tools.
import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SshPool } from "../../src/adapters/exec-ssh/pool.ts";
import { sshSession } from "../../src/adapters/exec-ssh/session.ts";
import { SshHostMutator } from "../../src/adapters/host-mutator-ssh.ts";
import { sessionExecOpener } from "../../src/adapters/remote-exec.ts";
import { sshActionContext } from "../../src/adapters/ssh-context.ts";
import { detectRemoteSystemd } from "../../src/adapters/systemd-bridge-ssh.ts";
import { remoteUnitManagers } from "../../src/adapters/systemd-remote.ts";
import type { ActionContext, MutatingAction } from "../../src/core/catalogue/action.ts";
import { DaemonReload } from "../../src/core/catalogue/actions/daemon-reload.ts";
import getDnsConfig from "../../src/core/catalogue/actions/get-dns-config.ts";
import getJournalDiskUsage from "../../src/core/catalogue/actions/get-journal-disk-usage.ts";
import getTimeSyncStatus from "../../src/core/catalogue/actions/get-time-sync-status.ts";
import listRoutes from "../../src/core/catalogue/actions/list-routes.ts";
import { MaskUnit, UnmaskUnit } from "../../src/core/catalogue/actions/mask-unit.ts";
import readUnitLogsSinceStart from "../../src/core/catalogue/actions/read-unit-logs-since-start.ts";
import { limitsPath, SetUnitResourceLimits } from "../../src/core/catalogue/actions/set-unit-resource-limits.ts";
import type { UnitManagerSet } from "../../src/ports/unit-manager.ts";
import { errorCode } from "../helpers/real-context.ts";
import { nspawnSshPrereqs, startNspawnSsh, type NspawnSshPeer } from "../peers/nspawn-ssh.ts";
import { REQUIRE_PEERS } from "../peers/proc.ts";

const missing = nspawnSshPrereqs();
if (missing !== null && !REQUIRE_PEERS) console.warn(`\n*** SKIPPING systemd-mask-limits tests: ${missing} (set HOSTGATE_REQUIRE_PEERS=1 to fail instead) ***\n`);
const suite = missing === null || REQUIRE_PEERS ? describe : describe.skip;

/** A vendor unit (in /lib: mask needs the /etc name free) that logs one line per run with a fresh id. */
const TALK = "hg-talk.service";
const TALK_FILE = "[Unit]\nDescription=hostgate test talker\n\n[Service]\nExecStart=/bin/sh -c 'echo \"hg-run $(cat /proc/sys/kernel/random/uuid)\"; exec sleep infinity'\n";

suite("systemd mutating actions on a PID-1 systemd container (as an SSH host)", () => {
  let peer: NspawnSshPeer;
  let pool: SshPool;
  let units: UnitManagerSet;
  let ctx: ActionContext;
  const sh = (script: string): string => {
    const r = peer.container.exec(["sh", "-c", script]);
    if (r.status !== 0) throw new Error(`${script} failed in the container (${r.status})`);
    return r.stdout;
  };
  /** preview → apply → preview: the two previews and the apply output. */
  async function cycle(action: MutatingAction, params: Record<string, unknown>): Promise<{ first: Awaited<ReturnType<MutatingAction["preview"]>>; out: unknown; second: Awaited<ReturnType<MutatingAction["preview"]>> }> {
    const p = action.params.parse(params);
    const first = await action.preview(p, ctx);
    const out = await action.apply(p, ctx, first);
    return { first, out, second: await action.preview(p, ctx) };
  }

  beforeAll(async () => {
    if (missing !== null) throw new Error(`peer unavailable: ${missing}`);
    peer = await startNspawnSsh();
    sh(`printf '%s' '${TALK_FILE.replace(/'/g, "'\\''")}' > /lib/systemd/system/${TALK} && systemctl daemon-reload && systemctl start ${TALK}`);
    pool = new SshPool({ known_hosts: [peer.knownHosts], host_keys: "strict", default_user: "root", default_identity_files: [peer.clientKey], connect_timeout_ms: 10_000 });
    const route = { target: { host: peer.ip, port: peer.port, user: "root" } };
    const open = sessionExecOpener(sshSession(pool, route));
    units = remoteUnitManagers({ open, host: "box", login: "root", become: "none" }, await detectRemoteSystemd(open, "box"));
    const mutator = new SshHostMutator({ open, host: "box", login: "root", become: "none" });
    ctx = (await sshActionContext({ pool, route, name: "box", logs_readable: { kind: "all" }, units, mutator })).ctx;
  }, 120_000);
  afterAll(async () => {
    await units?.close();
    pool?.close();
    await peer?.stop();
  });

  it("MaskUnit: preview, apply (the /etc link to /dev/null, systemctl says masked), second preview has nothing to do; UnmaskUnit undoes it the same way", async () => {
    const m = await cycle(MaskUnit, { unit: TALK });
    expect(m.first.text).toMatch(/active \(running\).*→ masked .*keeps running/);
    expect(m.out).toMatchObject({ outcome: { operation: "mask", result: "changed" }, state: { unit_file_state: "masked" } });
    expect(sh(`readlink /etc/systemd/system/${TALK}`).trim()).toBe("/dev/null");
    expect(sh(`systemctl is-enabled ${TALK} || true`).trim()).toBe("masked");
    expect(m.second.summary).toContain("nothing to do");
    expect((m.second.intended as { nothing_to_do: boolean }).nothing_to_do).toBe(true);
    const u = await cycle(UnmaskUnit, { unit: TALK });
    expect(u.out).toMatchObject({ outcome: { operation: "unmask", result: "changed" } });
    expect(sh(`test -e /etc/systemd/system/${TALK} && echo present || echo gone`).trim()).toBe("gone");
    expect(sh(`systemctl is-enabled ${TALK} || true`).trim()).toBe("static");
    expect((u.second.intended as { nothing_to_do: boolean }).nothing_to_do).toBe(true);
  }, 60_000);

  it("MaskUnit refuses journald, dbus, PID 1's units and hostgate's own unit, before touching the host", async () => {
    for (const unit of ["systemd-journald.service", "systemd-journald.socket", "dbus.service", "dbus.socket", "init.scope", "-.slice", "hostgate.service"]) {
      expect(await errorCode(() => MaskUnit.preview(MaskUnit.params.parse({ unit }), ctx)), unit).toBe("invalid_params");
      expect(await errorCode(() => MaskUnit.apply(MaskUnit.params.parse({ unit }), ctx, { summary: "", text: "" })), unit).toBe("invalid_params");
    }
    expect(sh("systemctl is-enabled systemd-journald.service || true").trim()).not.toBe("masked");
    expect(await errorCode(() => MaskUnit.preview(MaskUnit.params.parse({ unit: "hg-no-such.service" }), ctx))).toBe("no_such_unit");
  }, 30_000);

  it("SetUnitResourceLimits: the preview is the drop-in diff; apply writes it and reloads; systemctl show has the limits and lists the drop-in; the same limits again are nothing to do", async () => {
    const params = { unit: TALK, memory_max: "64M", cpu_quota_percent: 50, tasks_max: 32 };
    const r = await cycle(SetUnitResourceLimits, params);
    expect(r.first.text).toContain("new file");
    expect(r.first.text).toContain("+MemoryMax=64M\n+CPUQuota=50%\n+TasksMax=32");
    expect(r.out).toMatchObject({ path: limitsPath(TALK), changed: true, outcome: { operation: "daemon-reload" } });
    const show = sh(`systemctl show -p MemoryMax -p CPUQuotaPerSecUSec -p TasksMax ${TALK}`);
    expect(show).toContain(`MemoryMax=${64 * 1024 * 1024}`);
    expect(show).toContain("CPUQuotaPerSecUSec=500ms");
    expect(show).toContain("TasksMax=32");
    // The drop-in is among the unit's loaded files (the manager re-read it). The cgroup files themselves are not
    // checked: this machine's cgroup v1 hierarchy gives the container no memory or pids controller.
    expect(sh(`systemctl show -p DropInPaths --value ${TALK}`)).toContain(limitsPath(TALK));
    expect(r.second.summary).toContain("nothing to do");
    // A changed limit set replaces the file whole: the preview shows what goes and what comes.
    const again = await SetUnitResourceLimits.preview(SetUnitResourceLimits.params.parse({ unit: TALK, memory_max: "128M" }), ctx);
    expect(again.text).toContain("replaced");
    expect(again.text).toMatch(/-MemoryMax=64M[\s\S]*-CPUQuota=50%[\s\S]*-TasksMax=32[\s\S]*\+MemoryMax=128M/);
  }, 60_000);

  it("SetUnitResourceLimits refuses no limit, a bad size, a non-service unit and journald; nothing is written", async () => {
    expect(await errorCode(() => SetUnitResourceLimits.preview(SetUnitResourceLimits.params.parse({ unit: TALK }), ctx))).toBe("invalid_params");
    expect(SetUnitResourceLimits.params.safeParse({ unit: TALK, memory_max: "64 MB" }).success).toBe(false);
    expect(SetUnitResourceLimits.params.safeParse({ unit: TALK, cpu_quota_percent: 0 }).success).toBe(false);
    expect(await errorCode(() => SetUnitResourceLimits.preview(SetUnitResourceLimits.params.parse({ unit: "hg-tick.timer", tasks_max: 4 }), ctx))).toBe("invalid_unit_name");
    expect(await errorCode(() => SetUnitResourceLimits.preview(SetUnitResourceLimits.params.parse({ unit: "systemd-journald", memory_max: "1M" }), ctx))).toBe("invalid_params");
    expect(sh("test -e /etc/systemd/system/systemd-journald.service.d/90-hostgate-limits.conf && echo present || echo absent").trim()).toBe("absent");
  }, 30_000);

  it("DaemonReload: the preview names a unit whose file changed on disk; after apply nothing is left to do", async () => {
    sh(`printf '%s\\nEnvironment=HG_EDIT=1\\n' '[Service]' > /etc/systemd/system/hg-sleep.service.d/zz-edit.conf`);
    const r = await cycle(DaemonReload, {});
    expect(r.first.text).toContain("hg-sleep.service");
    expect(sh("systemctl show -p NeedDaemonReload --value hg-sleep.service").trim()).toBe("no");
    expect(r.out).toMatchObject({ outcome: { operation: "daemon-reload" }, units_needing_reload: [] });
    expect(r.second.summary).toContain("nothing to do");
  }, 60_000);

  it("ReadUnitLogsSinceStart returns the current run's lines only (journalctl -u shows both runs)", async () => {
    sh(`systemctl restart ${TALK}`);
    const lines = await (async () => {
      for (let i = 0; i < 50; i++) {
        const all = sh(`journalctl -u ${TALK} -o cat | grep '^hg-run ' || true`).trim().split("\n").filter((l) => l !== "");
        if (all.length >= 2) return all;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error("the talker did not log twice");
    })();
    const out = await readUnitLogsSinceStart.run(readUnitLogsSinceStart.params.parse({ unit: "hg-talk" }), ctx);
    const runs = out.entries.map((e) => e.message).filter((m) => m.startsWith("hg-run "));
    expect(runs).toEqual([lines.at(-1)]);
    expect(out.invocation_id).toBe(sh(`systemctl show -p InvocationID --value ${TALK}`).trim());
    expect(await errorCode(() => readUnitLogsSinceStart.run(readUnitLogsSinceStart.params.parse({ unit: "hg-no-such" }), ctx))).toBe("no_such_unit");
  }, 30_000);

  it("GetTimeSyncStatus reads timedated over D-Bus and equals `timedatectl show`", async () => {
    const out = await getTimeSyncStatus.run({}, ctx);
    const show = new Map(sh("timedatectl show").trim().split("\n").map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)] as const));
    const yes = (k: string): boolean => show.get(k) === "yes";
    expect(out).toMatchObject({ source: "timedated", timezone: show.get("Timezone"), ntp_enabled: yes("NTP"), ntp_synchronized: yes("NTPSynchronized"), can_ntp: yes("CanNTP"), local_rtc: yes("LocalRTC") });
  }, 30_000);

  it("GetJournalDiskUsage equals `journalctl --disk-usage` on a host with a journal", async () => {
    const out = await getJournalDiskUsage.run({}, ctx);
    const m = /take up ([0-9.]+)([BKMG])/.exec(sh("journalctl --disk-usage"))!;
    const unit = { B: 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3 }[m[2] as "B"];
    expect(out.total_bytes).toBeGreaterThan(0);
    expect(Math.abs(out.total_bytes - Number(m[1]) * unit)).toBeLessThanOrEqual(unit * 0.05 + 1);
  }, 30_000);

  it("ListRoutes and GetDnsConfig over SSH equal the container's `ip -j route` and /etc/resolv.conf", async () => {
    const routes = (await listRoutes.run(listRoutes.params.parse({ family: "IPv4" }), ctx)).routes;
    // The container's minbase rootfs has no iproute2: this machine's `ip`, run in the container's network namespace.
    const ip = JSON.parse(execFileSync("nsenter", ["-t", String(peer.container.leaderPid), "-n", "ip", "-j", "-4", "route", "show", "table", "main"], { encoding: "utf8" })) as { dst: string; dev: string }[];
    expect(routes.map((r) => `${r.destination} ${r.dev}`).sort()).toEqual(ip.map((r) => `${r.dst === "default" ? "0.0.0.0/0" : r.dst} ${r.dev}`).sort());
    const dns = await getDnsConfig.run({}, ctx);
    const servers = sh("grep '^nameserver' /etc/resolv.conf || true").split("\n").filter((l) => l !== "").map((l) => l.split(/\s+/)[1]);
    expect(dns.resolv_conf.nameservers).toEqual(servers);
  }, 30_000);
});
