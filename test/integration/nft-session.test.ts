// Issue 24 (perf24): the kept `nft -j -i` co-process behind GetFirewallRuleset (adapters/nft-session.ts), against
// real nft in a network namespace this test creates (its ruleset starts empty and only this test changes it; the
// machine's own firewall is never read or touched here). What it must never do: answer stale data, mix one
// command's error into the next answer, or outlive close().
import { execFileSync, spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LinuxHostProbe } from "../../src/adapters/host-linux.ts";
import { NftSession } from "../../src/adapters/nft-session.ts";
import getFirewallRuleset from "../../src/core/catalogue/actions/get-firewall-ruleset.ts";
import { errorCode, realContext } from "../helpers/real-context.ts";
import { peerMissing } from "../helpers/peers.ts";

const NS = `hgnft${process.pid}`;
const LIMITS = { timeoutMs: 10_000, maxOutputBytes: 4 * 1024 * 1024 };
const has = (tool: string): boolean => spawnSync("sh", ["-c", `command -v ${tool}`]).status === 0;

function prereqs(): string | null {
  if (process.getuid?.() !== 0) return "needs root (network namespaces, nft)";
  if (!has("nft") || !has("ip")) return "no nft or ip (nftables, iproute2)";
  return null;
}

/** nft in the test's namespace, one exec: the reference answer. */
const nftOnce = (...args: string[]): string => execFileSync("ip", ["netns", "exec", NS, "nft", ...args], { encoding: "utf8" });
/** The documents of an answer without metainfo (its version line is the same either way). */
const objects = (json: string): unknown[] => (JSON.parse(json) as { nftables: Record<string, unknown>[] }).nftables.filter((o) => !("metainfo" in o));
/** Processes in the namespace (the co-process is the only one). */
const pids = (): number[] => execFileSync("ip", ["netns", "pids", NS], { encoding: "utf8" }).split("\n").filter((l) => l !== "").map(Number);

async function until(f: () => boolean, ms = 3000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (f()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return f();
}

describe.skipIf(peerMissing("nft co-process", prereqs()))("NftSession (kept nft -j -i) in a private network namespace", () => {
  let session: NftSession;
  beforeAll(() => {
    execFileSync("ip", ["netns", "add", NS]);
    session = new NftSession({ argv: ["ip", "netns", "exec", NS, "nft"], env: { PATH: process.env.PATH ?? "/usr/sbin:/usr/bin:/sbin:/bin", LC_ALL: "C.UTF-8" } });
  });
  afterAll(async () => {
    session?.close();
    await until(() => pids().length === 0);
    spawnSync("ip", ["netns", "del", NS]);
  });

  it("answers every list with the kernel's ruleset as it is now: a change made by another nft shows at once (never stale), from one kept process", async () => {
    const empty = await session.list(["list", "ruleset"], LIMITS);
    expect(empty).toMatchObject({ exit_code: 0, timed_out: false, truncated: false, argv: ["nft", "-j", "list", "ruleset"] });
    expect(objects(empty.stdout)).toEqual([]);
    nftOnce("add", "table", "inet", "t1");
    nftOnce("add", "chain", "inet", "t1", "c1");
    nftOnce("add", "rule", "inet", "t1", "c1", "tcp", "dport", "2222", "accept");
    const added = await session.list(["list", "ruleset"], LIMITS);
    expect(objects(added.stdout)).toEqual(objects(nftOnce("-j", "list", "ruleset")));
    expect(objects(added.stdout)).toContainEqual({ table: { family: "inet", name: "t1", handle: expect.any(Number) as number } });
    nftOnce("delete", "table", "inet", "t1");
    expect(objects((await session.list(["list", "ruleset"], LIMITS)).stdout)).toEqual([]);
    expect(session.spawned).toBe(1);
    expect(pids()).toHaveLength(1);
  });

  it("answers concurrent calls one at a time, each with its own answer", async () => {
    nftOnce("add", "table", "ip", "t2");
    const answers = await Promise.all([
      session.list(["list", "ruleset"], LIMITS),
      session.list(["list", "table", "ip", "t2"], LIMITS),
      session.list(["list", "table", "ip", "nosuch"], LIMITS),
      session.list(["list", "tables"], LIMITS),
    ]);
    expect(answers.map((a) => a.exit_code)).toEqual([0, 0, 1, 0]);
    expect(objects(answers[0].stdout)).toEqual(objects(nftOnce("-j", "list", "ruleset")));
    expect(objects(answers[1].stdout)).toEqual(objects(nftOnce("-j", "list", "table", "ip", "t2")));
    expect(answers[2].stderr).toMatch(/^Error: No such file or directory/);
    expect(objects(answers[3].stdout)).toEqual(objects(nftOnce("-j", "list", "tables")));
    nftOnce("delete", "table", "ip", "t2");
  });

  it("a failed command answers nft's error and the next command a fresh co-process's answer, with nothing of the error in it", async () => {
    const before = session.spawned;
    const failed = await session.list(["list", "table", "inet", "nosuch"], LIMITS);
    expect(failed.exit_code).toBe(1);
    expect(failed.stdout).toBe("");
    expect(failed.stderr).toContain("No such file or directory");
    const next = await session.list(["list", "ruleset"], LIMITS);
    expect(next).toMatchObject({ exit_code: 0, stderr: "" });
    expect(objects(next.stdout)).toEqual([]);
    expect(session.spawned).toBe(before + 1);
  });

  it("restarts a co-process that died (killed from outside) on the next call", async () => {
    await session.list(["list", "ruleset"], LIMITS);
    const [pid] = pids();
    process.kill(pid!, "SIGKILL");
    expect(await until(() => pids().length === 0)).toBe(true);
    const before = session.spawned;
    const r = await session.list(["list", "ruleset"], LIMITS);
    expect(r.exit_code).toBe(0);
    expect(session.spawned).toBe(before + 1);
    expect(pids()).toHaveLength(1);
  });

  it("cuts an answer past maxOutputBytes (truncated) and ends that co-process", async () => {
    await session.list(["list", "ruleset"], LIMITS);
    const r = await session.list(["list", "ruleset"], { timeoutMs: 10_000, maxOutputBytes: 10 });
    expect(r).toMatchObject({ exit_code: 0, truncated: true });
    expect(Buffer.byteLength(r.stdout)).toBe(10);
    const before = session.spawned;
    expect((await session.list(["list", "ruleset"], LIMITS)).truncated).toBe(false);
    expect(session.spawned).toBe(before + 1);
  });

  it("refuses anything but a list command of plain words (no second command through a newline or `;`)", () => {
    for (const bad of [["flush", "ruleset"], ["list"], ["list", "ruleset\nflush ruleset"], ["list", "ruleset;", "flush", "ruleset"], ["list", "table", "ip", "a b"]]) {
      expect(() => session.list(bad, LIMITS), JSON.stringify(bad)).toThrow(/list command of plain words/);
    }
  });

  it("close() ends the co-process; a later call starts a new one", async () => {
    await session.list(["list", "ruleset"], LIMITS);
    expect(pids()).toHaveLength(1);
    session.close();
    expect(await until(() => pids().length === 0)).toBe(true);
    expect((await session.list(["list", "ruleset"], LIMITS)).exit_code).toBe(0);
    session.close();
    expect(await until(() => pids().length === 0)).toBe(true);
  });

  it("a non-root nft is refused by the kernel: exit 1 with nft's words, which GetFirewallRuleset reports as permission_denied", async () => {
    const nobody = new NftSession({ argv: ["ip", "netns", "exec", NS, "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "nft"], env: { PATH: process.env.PATH ?? "/usr/sbin:/usr/bin:/sbin:/bin" } });
    try {
      const r = await nobody.list(["list", "ruleset"], LIMITS);
      expect(r.exit_code).not.toBe(0);
      expect(r.stderr).toMatch(/Operation not permitted/);
      const ctx = await realContext();
      const host = { ...ctx.host, nftList: (w: readonly string[], o: typeof LIMITS) => nobody.list(w, o) };
      expect(await errorCode(() => getFirewallRuleset.run({}, { ...ctx, host }))).toBe("permission_denied");
    } finally {
      nobody.close();
    }
  });
});

describe("LinuxHostProbe.nftList without nft", () => {
  it("resolves null when nft is not on PATH, and GetFirewallRuleset says it is not installed (unavailable)", async () => {
    const path = process.env.PATH;
    process.env.PATH = "/nonexistent-hostgate-test";
    const probe = new LinuxHostProbe();
    try {
      expect(await probe.nftList(["list", "ruleset"], LIMITS)).toBeNull();
      const ctx = await realContext({ host: probe });
      expect(await errorCode(() => getFirewallRuleset.run({}, ctx))).toBe("unavailable");
    } finally {
      process.env.PATH = path;
      probe.close();
    }
  });

  it("a session whose nft cannot start answers exit 127 with the spawn error (no hang)", async () => {
    const s = new NftSession({ argv: ["/nonexistent-hostgate-test/nft"], env: {} });
    const r = await s.list(["list", "ruleset"], LIMITS);
    expect(r.exit_code).toBe(127);
    expect(r.stderr).toMatch(/ENOENT/);
    s.close();
  });
});
