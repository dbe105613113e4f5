// Issue 24 (k24): ReadKernelLog against this machine's kernel ring buffer, compared with `dmesg --json -x`
// (util-linux), locally and over SSH (a real sshd on loopback: the remote read is `dd iflag=nonblock`, which must
// return at once like the local O_NONBLOCK read); a login without CAP_SYSLOG is refused permission_denied.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SshPool } from "../../src/adapters/exec-ssh/pool.ts";
import { sshSession } from "../../src/adapters/exec-ssh/session.ts";
import { SshHostProbe } from "../../src/adapters/host-ssh.ts";
import type { ActionContext } from "../../src/core/catalogue/action.ts";
import readKernelLog, { KMSG_PATH } from "../../src/core/catalogue/actions/read-kernel-log.ts";
import { parseKmsg } from "../../src/core/host/kmsg.ts";
import type { HostProbe } from "../../src/ports/host-probe.ts";
import { peerMissing } from "../helpers/peers.ts";
import { errorCode, realContext } from "../helpers/real-context.ts";
import { sshdPrereqs, startSshd, type SshdPeer } from "../peers/sshd.ts";

type Dmesg = { fac: string; pri: string; time: number; msg: string };
/** dmesg's level words where they differ from ours (ReadJournal's). */
const DMESG_PRI: Record<string, string> = { warn: "warning" };

function dmesg(): Dmesg[] {
  return (JSON.parse(execFileSync("dmesg", ["--json", "-x"], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 })) as { dmesg: Dmesg[] }).dmesg;
}

/** µs since boot + message: one record's identity in both answers. */
const keyOf = (us: number, msg: string): string => `${us} ${msg}`;

type Ours = Awaited<ReturnType<typeof readKernelLog.run>>;

/** Every record of `ours` that dmesg (read after it) still holds is in dmesg with the same facility, level, time and text. */
function expectSameAsDmesg(ours: Ours, theirs: Dmesg[]): void {
  const byKey = new Map(theirs.map((d) => [keyOf(Math.round(d.time * 1e6), d.msg), d]));
  const first = Math.round((theirs[0]?.time ?? Infinity) * 1e6);
  // Plain one-line ASCII messages: dmesg escapes other bytes its own way and prints a multi-line message differently.
  const comparable = ours.records.filter((r) => Math.round(r.monotonic_s * 1e6) >= first && /^[\x20-\x7e]*$/.test(r.message));
  expect(comparable.length).toBeGreaterThan(0);
  for (const r of comparable) {
    const d = byKey.get(keyOf(Math.round(r.monotonic_s * 1e6), r.message));
    expect(d, `${r.monotonic_s} ${r.message}`).toBeDefined();
    expect({ facility: r.facility, priority: r.priority }).toEqual({ facility: d!.fac, priority: DMESG_PRI[d!.pri] ?? d!.pri });
  }
}

/**
 * A read capped at a third of the buffer keeps its newest records: whole ones (the text starts at a record and
 * ends with a newline), within the cap, the newest seq at least the uncapped read's, the oldest dropped.
 */
async function expectNewestKept(ctx: ActionContext): Promise<void> {
  const full = await ctx.host.readRecords(KMSG_PATH, { maxBytes: 64 * 1024 * 1024 });
  const cap = Math.floor(Buffer.byteLength(full.text) / 3);
  const capped = await ctx.host.readRecords(KMSG_PATH, { maxBytes: cap });
  expect(capped.truncated).toBe(true);
  expect(Buffer.byteLength(capped.text)).toBeLessThanOrEqual(cap);
  expect(Buffer.byteLength(capped.text)).toBeGreaterThan(cap - 16 * 1024); // only the one record that did not fit is missing
  expect(capped.text).toMatch(/^\d+,\d+,\d+,[^;]*;/);
  expect(capped.text.endsWith("\n")).toBe(true);
  const all = parseKmsg(full.text).map((r) => r.seq);
  const kept = parseKmsg(capped.text).map((r) => r.seq);
  expect(kept[0]).toBeGreaterThan(all[0]!);
  expect(kept.at(-1)).toBeGreaterThanOrEqual(all.at(-1)!);
  // the answer says so too (the same probe, its cap lowered)
  const host = Object.assign(Object.create(ctx.host) as HostProbe, { readRecords: (p: string, o: { maxBytes: number }) => ctx.host.readRecords(p, { ...o, maxBytes: cap }) });
  expect((await readKernelLog.run(readKernelLog.params.parse({ limit: 1000 }), { ...ctx, host })).truncated).toBe(true);
}

const btimeMs = (): number => Number(/^btime (\d+)$/m.exec(readFileSync("/proc/stat", "utf8"))![1]) * 1000;

describe("ReadKernelLog on this machine", () => {
  let ctx: ActionContext;
  beforeAll(async () => { ctx = await realContext(); });

  it("returns the newest records as dmesg --json -x shows them (facility, priority, monotonic time, text), with the wall clock from btime", async () => {
    const ours = await readKernelLog.run(readKernelLog.params.parse({ limit: 1000 }), ctx);
    expectSameAsDmesg(ours, dmesg());
    expect(ours.boot_time).toBe(new Date(btimeMs()).toISOString());
    const last = ours.records.at(-1)!;
    expect(Date.parse(last.time)).toBe(btimeMs() + Math.floor(last.monotonic_s * 1000));
    // seq grows; monotonic time never goes back
    for (let i = 1; i < ours.records.length; i++) {
      expect(ours.records[i]!.seq).toBeGreaterThan(ours.records[i - 1]!.seq);
      expect(ours.records[i]!.monotonic_s).toBeGreaterThanOrEqual(ours.records[i - 1]!.monotonic_s);
    }
  });

  it("filters: min_priority keeps that level or more severe (dmesg --level agrees), since_boot_seconds and facility bound it, limit keeps the newest", async () => {
    const warn = await readKernelLog.run(readKernelLog.params.parse({ min_priority: "warning", limit: 1000 }), ctx);
    for (const r of warn.records) expect(["emerg", "alert", "crit", "err", "warning"]).toContain(r.priority);
    expectSameAsDmesg(warn, dmesg().filter((d) => ["emerg", "alert", "crit", "err", "warn"].includes(d.pri)));
    const all = await readKernelLog.run(readKernelLog.params.parse({ limit: 1000 }), ctx);
    const mid = all.records[Math.floor(all.records.length / 2)]!.monotonic_s;
    const since = await readKernelLog.run(readKernelLog.params.parse({ since_boot_seconds: mid, limit: 1000 }), ctx);
    expect(since.records.length).toBeGreaterThan(0);
    for (const r of since.records) expect(r.monotonic_s).toBeGreaterThanOrEqual(mid);
    const kern = await readKernelLog.run(readKernelLog.params.parse({ facility: "kern", limit: 1000 }), ctx);
    for (const r of kern.records) expect(r.facility).toBe("kern");
    const two = await readKernelLog.run(readKernelLog.params.parse({ limit: 2 }), ctx);
    expect(two.records).toHaveLength(2);
    expect(two.truncated).toBe(true);
    expect(two.records[1]!.seq).toBeGreaterThanOrEqual(all.records.at(-1)!.seq);
  });

  it("returns at once when no new record arrives (the read never waits on /dev/kmsg)", async () => {
    // A blocking read would hang here until the kernel logged again; the probe answers with what is there.
    const r = await ctx.host.readRecords(KMSG_PATH, { maxBytes: 64 * 1024 * 1024 });
    expect(r.text.endsWith("\n")).toBe(true);
    expect(r.truncated).toBe(false);
    const cut = await ctx.host.readRecords(KMSG_PATH, { maxBytes: 100 });
    expect(cut.truncated).toBe(true);
  });

  it("past its byte cap keeps the newest whole records and drops the oldest (truncated)", async () => {
    await expectNewestKept(ctx);
  });

  it("refuses bad parameters with the parameter named", () => {
    for (const bad of [{ min_priority: "warn" }, { limit: 0 }, { since_boot_seconds: -1 }, { facility: "kernel" }, { grep: "x" }]) {
      const r = readKernelLog.params.safeParse(bad);
      expect(r.success, JSON.stringify(bad)).toBe(false);
      expect(JSON.stringify(r.error!.issues)).toContain(Object.keys(bad)[0]!);
    }
  });
});

describe.skipIf(peerMissing("kernel log over SSH", sshdPrereqs()))("ReadKernelLog over SSH (loopback sshd)", () => {
  let root: SshdPeer;
  let user: SshdPeer;
  let pools: SshPool[] = [];
  const contextFor = async (peer: SshdPeer, login: string): Promise<ActionContext> => {
    const pub = readFileSync(join(peer.dir, "host_key.pub"), "utf8").split(" ").slice(0, 2).join(" ");
    writeFileSync(join(peer.dir, "known_hosts"), `[127.0.0.1]:${peer.port} ${pub}\n`);
    const pool = new SshPool({ known_hosts: [join(peer.dir, "known_hosts")], host_keys: "strict", default_user: login, default_identity_files: [peer.clientKey], connect_timeout_ms: 5000 });
    pools.push(pool);
    const host = new SshHostProbe(sshSession(pool, { target: { host: "127.0.0.1", port: peer.port, user: login } }), "loop");
    return { ...(await realContext()), host };
  };
  beforeAll(async () => {
    root = await startSshd();
    user = await startSshd({ user: "hgkmsg" });
  }, 30_000);
  afterAll(async () => {
    for (const p of pools) p.close();
    pools = [];
    await root?.stop();
    await user?.stop();
  });

  it("as root: the same records as dmesg --json -x", async () => {
    const ctx = await contextFor(root, "root");
    const ours = await readKernelLog.run(readKernelLog.params.parse({ limit: 1000 }), ctx);
    expectSameAsDmesg(ours, dmesg());
  }, 30_000);

  it("as root, past the byte cap: the newest records, as the local probe keeps them (tail -c on the host)", async () => {
    await expectNewestKept(await contextFor(root, "root"));
  }, 30_000);

  it.skipIf(readFileSync("/proc/sys/kernel/dmesg_restrict", "utf8").trim() !== "1")("as a login without CAP_SYSLOG (kernel.dmesg_restrict=1): permission_denied", async () => {
    const ctx = await contextFor(user, "hgkmsg");
    expect(await errorCode(() => readKernelLog.run(readKernelLog.params.parse({}), ctx))).toBe("permission_denied");
  }, 30_000);
});
