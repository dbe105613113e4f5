// Issue 24 (k24): CreateTimer and RemoveTimer previewed then applied on a real PID-1 systemd (the nspawn container,
// reached as an SSH host: D-Bus through systemd-stdio-bridge, files and writes over SSH), checked with the
// container's own systemctl and systemd-analyze; a second preview shows nothing left to do; every refusal.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SshPool } from "../../src/adapters/exec-ssh/pool.ts";
import { sshSession } from "../../src/adapters/exec-ssh/session.ts";
import { SshHostMutator } from "../../src/adapters/host-mutator-ssh.ts";
import { sessionExecOpener } from "../../src/adapters/remote-exec.ts";
import { sshActionContext } from "../../src/adapters/ssh-context.ts";
import { detectRemoteSystemd } from "../../src/adapters/systemd-bridge-ssh.ts";
import { remoteUnitManagers } from "../../src/adapters/systemd-remote.ts";
import type { ActionContext, MutatingAction, Preview } from "../../src/core/catalogue/action.ts";
import { CreateTimer } from "../../src/core/catalogue/actions/create-timer.ts";
import listTimers from "../../src/core/catalogue/actions/list-timers.ts";
import { RemoveTimer } from "../../src/core/catalogue/actions/remove-timer.ts";
import { TIMER_MARKER } from "../../src/core/catalogue/actions/timer-unit.ts";
import type { UnitManagerSet } from "../../src/ports/unit-manager.ts";
import { errorCode } from "../helpers/real-context.ts";
import { nspawnSshPrereqs, startNspawnSsh, type NspawnSshPeer } from "../peers/nspawn-ssh.ts";
import { REQUIRE_PEERS } from "../peers/proc.ts";

const missing = nspawnSshPrereqs();
if (missing !== null && !REQUIRE_PEERS) console.warn(`\n*** SKIPPING timer-actions tests: ${missing} (set HOSTGATE_REQUIRE_PEERS=1 to fail instead) ***\n`);
const suite = missing === null || REQUIRE_PEERS ? describe : describe.skip;

const SERVICE = "hg-oneshot.service";
const TIMER = "hg-oneshot.timer";

suite("CreateTimer / RemoveTimer on a PID-1 systemd container (as an SSH host)", () => {
  let peer: NspawnSshPeer;
  let pool: SshPool;
  let units: UnitManagerSet;
  let ctx: ActionContext;
  const sh = (script: string): string => {
    const r = peer.container.exec(["sh", "-c", script]);
    if (r.status !== 0) throw new Error(`${script} failed in the container (${r.status})`);
    return r.stdout;
  };
  async function cycle(action: MutatingAction, params: Record<string, unknown>): Promise<{ first: Preview; out: unknown; second: Preview }> {
    const p = action.params.parse(params);
    const first = await action.preview(p, ctx);
    const out = await action.apply(p, ctx, first);
    return { first, out, second: await action.preview(p, ctx) };
  }
  const refusal = (action: MutatingAction, params: Record<string, unknown>): Promise<string | null> => errorCode(() => action.preview(action.params.parse(params), ctx));

  beforeAll(async () => {
    if (missing !== null) throw new Error(`peer unavailable: ${missing}`);
    peer = await startNspawnSsh();
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

  it("CreateTimer: the preview is the unit text; apply writes it marked, enables and starts it (systemctl agrees); the same timer again is nothing to do", async () => {
    const r = await cycle(CreateTimer, { service: SERVICE, on_calendar: "Mon..Fri 09:30", persistent: true, randomized_delay_sec: "5min" });
    expect(r.first.summary).toBe(`create timer ${TIMER} for ${SERVICE}`);
    expect(r.first.text).toContain(`write /etc/systemd/system/${TIMER}, daemon-reload, enable ${TIMER}, start ${TIMER}`);
    expect(r.first.text).toContain("OnCalendar=Mon..Fri 09:30\nPersistent=true\nRandomizedDelaySec=5min");
    // the normalized form is the container's own systemd-analyze answer
    const normalized = /Normalized form: (.+)/.exec(sh("systemd-analyze calendar 'Mon..Fri 09:30'"))![1]!.trim();
    expect(r.first.text).toContain(`OnCalendar normalized: ${normalized}`);
    expect(r.out).toMatchObject({ timer: TIMER, changed: true, state: { active_state: "active", unit_file_state: "enabled" } });
    const file = sh(`cat /etc/systemd/system/${TIMER}`);
    expect(file.split("\n")[0]).toBe(TIMER_MARKER);
    expect(file).toContain(`Unit=${SERVICE}`);
    expect(sh(`systemctl is-enabled ${TIMER}`).trim()).toBe("enabled");
    expect(sh(`systemctl is-active ${TIMER}`).trim()).toBe("active");
    const show = sh(`systemctl show -p Persistent -p RandomizedDelayUSec ${TIMER}`);
    expect(show).toContain("Persistent=yes");
    expect(show).toContain("RandomizedDelayUSec=5min");
    const listed = (await listTimers.run({}, ctx)).timers.find((t) => t.unit === TIMER);
    expect(listed).toMatchObject({ activates: SERVICE, persistent: true, calendar: [normalized] });
    expect(r.second.summary).toContain("nothing to do");
    expect((r.second.intended as { nothing_to_do: boolean }).nothing_to_do).toBe(true);
  }, 60_000);

  it("CreateTimer on its own timer with another schedule: the preview is a diff, apply restarts it, ListTimers shows the new schedule", async () => {
    const params = { service: SERVICE, on_boot_sec: "10min", on_unit_active_sec: "1h" };
    const r = await cycle(CreateTimer, params);
    expect(r.first.text).toContain(`replace /etc/systemd/system/${TIMER}, daemon-reload, restart ${TIMER}`);
    expect(r.first.text).toMatch(/-OnCalendar=Mon\.\.Fri 09:30[\s\S]*\+OnBootSec=10min\n\+OnUnitActiveSec=1h/);
    expect(r.out).toMatchObject({ changed: true, state: { active_state: "active" } });
    const monotonic = sh(`systemctl show -p TimersMonotonic --value ${TIMER}`);
    expect(monotonic).toContain("OnBootUSec=10min");
    expect(monotonic).toContain("OnUnitActiveUSec=1h");
    const listed = (await listTimers.run({}, ctx)).timers.find((t) => t.unit === TIMER);
    expect(listed).toMatchObject({ calendar: [], persistent: false });
    expect(r.second.summary).toContain("nothing to do");
  }, 60_000);

  it("RemoveTimer: stops, disables and deletes hostgate's timer; systemctl no longer knows it; the second preview has nothing to do", async () => {
    const r = await cycle(RemoveTimer, { timer: TIMER });
    expect(r.first.text).toContain(`stop ${TIMER}`);
    expect(r.first.text).toContain("(created by hostgate)");
    expect(r.out).toMatchObject({ timer: TIMER, removed: true, state: null });
    expect(sh(`test -e /etc/systemd/system/${TIMER} && echo present || echo gone`).trim()).toBe("gone");
    expect(sh(`test -e /etc/systemd/system/timers.target.wants/${TIMER} && echo present || echo gone`).trim()).toBe("gone");
    expect(sh(`systemctl show -p LoadState --value ${TIMER}`).trim()).toBe("not-found");
    expect(r.second.summary).toContain("nothing to do");
  }, 60_000);

  it("CreateTimer refuses a missing service, a name taken by a unit hostgate did not create, a bad calendar or span, no schedule; nothing is written", async () => {
    expect(await refusal(CreateTimer, { service: "hg-no-such.service", on_calendar: "daily" })).toBe("no_such_unit");
    // hg-tick.timer: the test units' own file in /etc/systemd/system, not marked
    expect(await refusal(CreateTimer, { service: SERVICE, timer: "hg-tick.timer", on_calendar: "daily" })).toBe("invalid_params");
    // a vendor timer in /lib: the /etc name is free, the unit is not
    sh("printf '[Timer]\\nOnCalendar=daily\\nUnit=hg-oneshot.service\\n' > /lib/systemd/system/hg-vendor.timer && systemctl daemon-reload");
    expect(await refusal(CreateTimer, { service: SERVICE, timer: "hg-vendor.timer", on_calendar: "daily" })).toBe("invalid_params");
    expect(await refusal(CreateTimer, { service: SERVICE, on_calendar: "dailyx" })).toBe("invalid_params");
    expect(await refusal(CreateTimer, { service: SERVICE, on_calendar: "*-*-32 00:00" })).toBe("invalid_params");
    expect(await refusal(CreateTimer, { service: SERVICE, on_boot_sec: "5 parsecs" })).toBe("invalid_params");
    expect(await refusal(CreateTimer, { service: SERVICE })).toBe("invalid_params");
    expect(await refusal(CreateTimer, { service: SERVICE, on_boot_sec: "5min", persistent: true })).toBe("invalid_params");
    expect(await refusal(CreateTimer, { service: "hg-tick.timer", on_calendar: "daily" })).toBe("invalid_unit_name");
    expect(CreateTimer.params.safeParse({ service: SERVICE, on_calendar: "daily; rm -rf /" }).success).toBe(false);
    expect(sh(`ls /etc/systemd/system/ | grep -c '^hg-oneshot.timer$' || true`).trim()).toBe("0");
    expect(sh("head -1 /etc/systemd/system/hg-tick.timer")).not.toContain("hostgate");
  }, 60_000);

  it("RemoveTimer refuses an unmarked file unless forced, a masked timer and a vendor timer even when forced", async () => {
    expect(await refusal(RemoveTimer, { timer: "hg-tick.timer" })).toBe("invalid_params");
    expect(sh("systemctl is-active hg-tick.timer").trim()).toBe("active");
    const forced = await cycle(RemoveTimer, { timer: "hg-tick.timer", force: true });
    expect(forced.first.text).toContain("NOT created by hostgate (force)");
    expect(forced.out).toMatchObject({ removed: true });
    expect(sh("test -e /etc/systemd/system/hg-tick.timer && echo present || echo gone").trim()).toBe("gone");
    expect(await refusal(RemoveTimer, { timer: "hg-vendor.timer", force: true })).toBe("invalid_params");
    sh("systemctl mask hg-vendor.timer");
    expect(await refusal(RemoveTimer, { timer: "hg-vendor.timer", force: true })).toBe("invalid_params");
    expect(sh("readlink /etc/systemd/system/hg-vendor.timer").trim()).toBe("/dev/null");
  }, 60_000);
});
