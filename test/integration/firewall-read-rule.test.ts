// Review (s24): the firewall actions' readRule spawned `nft -j list table inet hostgate` for every read (preview,
// execute's second preview, capture, apply, revert), while the probe already keeps an `nft -j -i` co-process
// (HostProbe.nftList, adapters/nft-session.ts) that GetFirewallRuleset uses. Real nft in a network namespace this
// test creates (the machine's own ruleset is never read or changed): the co-process session is the adapter's
// NftSession started as `ip netns exec NS nft`, the probe's `run` is the real one, watched for nft spawns.
import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NftSession } from "../../src/adapters/nft-session.ts";
import type { ActionContext } from "../../src/core/catalogue/action.ts";
import { readRule } from "../../src/core/catalogue/actions/firewall-nft.ts";
import { peerMissing } from "../helpers/peers.ts";
import { realContext } from "../helpers/real-context.ts";
import { netnsPrereqs } from "../peers/netns-sshd.ts";
import { whichSync } from "../peers/proc.ts";

const ns = `hgfwr${process.pid}`;
const missing = peerMissing("readRule through the kept nft", netnsPrereqs() ?? (whichSync("nft") ? null : "no nft (apt-get install nftables)"));
const inNs = (argv: string[]): string => execFileSync("ip", ["netns", "exec", ns, ...argv], { encoding: "utf8" });

describe.skipIf(missing)("readRule reads hostgate's table through the probe's kept nft", () => {
  let session: NftSession;
  let ctx: ActionContext;
  const spawned: string[][] = [];
  beforeAll(async () => {
    execFileSync("ip", ["netns", "add", ns]);
    session = new NftSession({ argv: ["ip", "netns", "exec", ns, "nft"], env: { PATH: process.env.PATH ?? "/usr/sbin:/usr/bin", LC_ALL: "C.UTF-8" } });
    const base = await realContext();
    const host = new Proxy(base.host, {
      get: (t, k, r) => {
        if (k === "nftList") return (words: readonly string[], o: { timeoutMs: number; maxOutputBytes: number }) => session.list(words, o);
        // nft run through `run` would read the machine's own ruleset: recorded, and answered as a failure.
        if (k === "run") return (argv: readonly string[], o?: unknown) => (argv[0]?.endsWith("nft") ? (spawned.push([...argv]), Promise.resolve({ argv: [...argv], exit_code: 1, signal: null, timed_out: false, duration_ms: 0, stdout: "", stderr: "spawned nft", truncated: false })) : (t.run as (a: readonly string[], o?: unknown) => Promise<unknown>)(argv, o));
        return Reflect.get(t, k, r) as unknown;
      },
    });
    ctx = { ...base, host };
  });
  afterAll(() => {
    session?.close();
    try { execFileSync("ip", ["netns", "delete", ns]); } catch { /* already gone */ }
  });

  it("no table, then the table without the rule, then the rule: each read answers as nft does, and no nft is spawned per read", async () => {
    expect(await readRule({ port: 8080, protocol: "tcp" }, ctx)).toEqual({ table: false, present: false, handles: [] });
    inNs(["nft", "add table inet hostgate; add chain inet hostgate input { type filter hook input priority filter; policy accept; }"]);
    expect(await readRule({ port: 8080, protocol: "tcp" }, ctx)).toEqual({ table: true, present: false, handles: [] });
    inNs(["nft", "add rule inet hostgate input tcp dport 8080 accept comment \"hostgate:allow:tcp:8080\""]);
    const listed = JSON.parse(inNs(["nft", "-j", "-a", "list", "table", "inet", "hostgate"])) as { nftables: { rule?: { handle: number } }[] };
    const handles = listed.nftables.flatMap((i) => (i.rule ? [i.rule.handle] : []));
    expect(await readRule({ port: 8080, protocol: "tcp" }, ctx)).toEqual({ table: true, present: true, handles });
    expect(await readRule({ port: 8080, protocol: "udp" }, ctx)).toEqual({ table: true, present: false, handles: [] });
    expect(spawned).toEqual([]);
    // One co-process for the reads of an existing table (the missing table's error ends the first one: NftSession).
    expect(session.spawned).toBeLessThanOrEqual(2);
  });
});
