import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DbusUnitManager } from "../../src/adapters/systemd-dbus.ts";
import { createMockUnitManagers } from "../../src/adapters/systemd-mock.ts";
import { createUnitManagerSet } from "../../src/adapters/unit-manager-set.ts";
import getBootTiming from "../../src/core/catalogue/actions/get-boot-timing.ts";
import listTimers from "../../src/core/catalogue/actions/list-timers.ts";
import type { ActionContext } from "../../src/core/catalogue/action.ts";
import { peerMissing } from "../helpers/peers.ts";
import { errorCode, realContext } from "../helpers/real-context.ts";
import { nspawnPrereqs, startNspawn, type NspawnPeer } from "../peers/nspawn.ts";

/** Issue 24: ListTimers and GetBootTiming against systemctl list-timers / systemd-analyze blame in a real PID-1 systemd (nspawn). */
const skip = peerMissing("ListTimers/GetBootTiming against PID-1 systemd", nspawnPrereqs());

describe.skipIf(skip)("systemd reads in a PID-1 systemd container", () => {
  let peer: NspawnPeer;
  let ctx: ActionContext;
  beforeAll(async () => {
    peer = await startNspawn({
      prepare: (root) => {
        const dir = join(root, "etc", "systemd", "system");
        // a monotonic-only timer (OnBootSec), whose next elapse must be moved to wall-clock time
        writeFileSync(join(dir, "hg-mono.timer"), "[Timer]\nOnBootSec=2h\nUnit=hg-oneshot.service\n[Install]\nWantedBy=timers.target\n");
        // one that fires a second after boot, so a last trigger exists
        writeFileSync(join(dir, "hg-soon.timer"), "[Timer]\nOnActiveSec=1s\nAccuracySec=1us\nUnit=hg-oneshot.service\n[Install]\nWantedBy=timers.target\n");
        mkdirSync(join(dir, "timers.target.wants"), { recursive: true });
        symlinkSync("../hg-mono.timer", join(dir, "timers.target.wants", "hg-mono.timer"));
        symlinkSync("../hg-soon.timer", join(dir, "timers.target.wants", "hg-soon.timer"));
      },
    });
    ctx = await realContext({ units: createUnitManagerSet(new DbusUnitManager({ busAddress: peer.busAddress, fileRoot: peer.fileRoot }), new Map()) });
  }, 120_000);
  afterAll(async () => {
    await ctx?.units.close();
    await peer?.stop();
  });

  it("ListTimers lists what systemctl list-timers --all -o json lists, with the same next and last elapse", async () => {
    for (let i = 0; i < 100 && !/"last":[1-9]/.test(peer.exec(["systemctl", "list-timers", "--all", "-o", "json", "hg-soon.timer"]).stdout); i++) await new Promise((res) => setTimeout(res, 100));
    const r = await listTimers.run({}, ctx);
    type Row = { unit: string; activates: string; next: number | null; last: number | null };
    const expected = (JSON.parse(peer.exec(["systemctl", "list-timers", "--all", "-o", "json"]).stdout) as Row[]).sort((a, b) => a.unit.localeCompare(b.unit));
    expect(r.timers.map((t) => [t.unit, t.activates])).toEqual(expected.map((e) => [e.unit, e.activates]));
    for (const e of expected) {
      const got = r.timers.find((t) => t.unit === e.unit)!;
      if (e.next === null || e.next === 0) expect(got.next_elapse, e.unit).toBeNull();
      // systemctl moves a monotonic elapse to wall-clock time with its own "now"; we use the manager's dual timestamp
      else expect(Math.abs(Date.parse(got.next_elapse!) - e.next / 1000), e.unit).toBeLessThan(1000);
      expect(got.last_trigger, e.unit).toBe(e.last ? new Date(Math.floor(e.last / 1000)).toISOString() : null);
    }
    expect(r.timers.find((t) => t.unit === "hg-mono.timer")).toMatchObject({ activates: "hg-oneshot.service", calendar: [] });
    expect(r.timers.find((t) => t.unit === "hg-tick.timer")!.calendar.length).toBeGreaterThan(0);
    const soon = r.timers.find((t) => t.unit === "hg-soon.timer")!;
    expect(soon.next_elapse).toBeNull();
    expect(Date.parse(soon.last_trigger!)).toBeGreaterThan(Date.now() - 600_000);
  });

  it("GetBootTiming's units and times are systemd-analyze blame's", async () => {
    // units started after boot finished (systemd-update-utmp-runlevel) must be done before both look
    for (let i = 0; i < 100 && peer.exec(["systemctl", "list-jobs", "--no-legend"]).stdout.trim() !== ""; i++) await new Promise((res) => setTimeout(res, 100));
    const toMs = (t: string): number => t.split(" ").reduce((sum, part) => {
      const m = /^([\d.]+)(min|ms|us|s)$/.exec(part)!;
      return sum + Number(m[1]) * { min: 60_000, s: 1000, ms: 1, us: 0.001 }[m[2] as "min" | "s" | "ms" | "us"];
    }, 0);
    const blame = peer.exec(["systemd-analyze", "blame", "--no-pager"]).stdout.trim().split("\n").map((l) => {
      const m = /^\s*(.+?)\s+(\S+)$/.exec(l)!;
      return { unit: m[2]!, ms: toMs(m[1]!) };
    });
    const r = await getBootTiming.run(getBootTiming.params.parse({ limit: 500 }), ctx);
    expect(r.units.map((u) => u.unit).sort()).toEqual(blame.map((b) => b.unit).sort());
    for (const b of blame) expect(Math.abs(r.units.find((u) => u.unit === b.unit)!.activation_ms - b.ms), b.unit).toBeLessThanOrEqual(1);
    expect(r.finished).toBe(true);
    expect(r.userspace_ms).toBeGreaterThan(0);
    const top = await getBootTiming.run(getBootTiming.params.parse({ limit: 3 }), ctx);
    expect(top.units).toEqual(r.units.slice(0, 3));
  });
});

describe("without a D-Bus systemd backend", () => {
  it("ListTimers and GetBootTiming answer unavailable, saying what to use instead", async () => {
    const ctx = await realContext({ units: createMockUnitManagers() });
    expect(await errorCode(() => listTimers.run({}, ctx))).toBe("unavailable");
    expect(await errorCode(() => getBootTiming.run(getBootTiming.params.parse({}), ctx))).toBe("unavailable");
  });
});
