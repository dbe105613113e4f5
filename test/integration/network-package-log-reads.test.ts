// Issue 24 (r24c): the new read-only actions against the real machine, each compared with the standard tool that
// answers the same question (ip -j route, nft -j, resolv.conf, dpkg-query, dpkg -L, apt list --upgradable,
// journalctl --disk-usage) and with planted fixtures (a listening socket, an nft table) for what the machine lacks.
import { execFileSync, spawnSync } from "node:child_process";
import { createServer, type Server } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import checkTcpConnect from "../../src/core/catalogue/actions/check-tcp-connect.ts";
import getDnsConfig from "../../src/core/catalogue/actions/get-dns-config.ts";
import getFirewallRuleset from "../../src/core/catalogue/actions/get-firewall-ruleset.ts";
import getJournalDiskUsage from "../../src/core/catalogue/actions/get-journal-disk-usage.ts";
import listInstalledPackages from "../../src/core/catalogue/actions/list-installed-packages.ts";
import listPackageFiles from "../../src/core/catalogue/actions/list-package-files.ts";
import listRoutes from "../../src/core/catalogue/actions/list-routes.ts";
import listUpgradablePackages from "../../src/core/catalogue/actions/list-upgradable-packages.ts";
import type { ActionContext } from "../../src/core/catalogue/action.ts";
import { parseResolvConf } from "../../src/core/host/resolv-conf.ts";
import { errorCode, realContext } from "../helpers/real-context.ts";

const sh = (argv: string[]): string => execFileSync(argv[0]!, argv.slice(1), { encoding: "utf8", env: { ...process.env, LC_ALL: "C" } });
const has = (tool: string): boolean => spawnSync("sh", ["-c", `command -v ${tool}`]).status === 0;
const isRoot = process.getuid?.() === 0;

let ctx: ActionContext;
beforeAll(async () => { ctx = await realContext(); });

describe("network", () => {
  it("list_routes (IPv4) equals `ip -j route show table main`", async () => {
    const ours = (await listRoutes.run(listRoutes.params.parse({ family: "IPv4" }), ctx)).routes;
    const ip = JSON.parse(sh(["ip", "-j", "-4", "route", "show", "table", "main"])) as { dst: string; gateway?: string; dev: string; metric?: number }[];
    const norm = (d: string): string => (d === "default" ? "0.0.0.0/0" : d.includes("/") ? d : `${d}/32`);
    expect(ours.map((r) => ({ dst: r.destination, gw: r.gateway, dev: r.dev, metric: r.metric })).sort((a, b) => a.dst.localeCompare(b.dst)))
      .toEqual(ip.map((r) => ({ dst: norm(r.dst), gw: r.gateway ?? null, dev: r.dev, metric: r.metric ?? 0 })).sort((a, b) => a.dst.localeCompare(b.dst)));
    expect(ours.length).toBeGreaterThan(0);
  });

  it("list_routes (IPv6) equals `ip -j -6 route show table all` (type, destination, gateway, device, metric)", async () => {
    const ours = (await listRoutes.run(listRoutes.params.parse({ family: "IPv6" }), ctx)).routes;
    const ip = JSON.parse(sh(["ip", "-j", "-6", "route", "show", "table", "all"])) as { type?: string; dst: string; gateway?: string; dev: string; metric?: number }[];
    const norm = (d: string): string => (d === "default" ? "::/0" : d.includes("/") ? d : `${d}/128`);
    const key = (r: { t: string; dst: string; gw: string | null; dev: string; metric: number }): string => `${r.t} ${r.dst} ${r.gw ?? "-"} ${r.dev} ${r.metric}`;
    expect(ours.map((r) => key({ t: r.type, dst: r.destination, gw: r.gateway, dev: r.dev, metric: r.metric })).sort())
      .toEqual(ip.map((r) => key({ t: r.type ?? "unicast", dst: norm(r.dst), gw: r.gateway ?? null, dev: r.dev, metric: r.metric ?? 0 })).sort());
  });

  it("get_dns_config equals /etc/resolv.conf as glibc reads it (nameserver lines, search)", async () => {
    const out = await getDnsConfig.run({}, ctx);
    const text = sh(["cat", "/etc/resolv.conf"]);
    const servers = text.split("\n").filter((l) => /^nameserver\s/.test(l)).map((l) => l.split(/\s+/)[1]);
    expect(out.resolv_conf.nameservers).toEqual(servers);
    expect(out.resolv_conf.nameservers.length).toBeGreaterThan(0);
    expect(out.resolved.stub).toBe(servers.includes("127.0.0.53"));
  });

  it("parses a resolved stub file: comments, search list, options (planted text)", () => {
    const conf = parseResolvConf("# managed\nnameserver 127.0.0.53\noptions edns0 trust-ad ; note\nsearch corp.example lab.example\n");
    expect(conf).toEqual({ nameservers: ["127.0.0.53"], search: ["corp.example", "lab.example"], options: ["edns0", "trust-ad"] });
  });

  describe.skipIf(!has("nft") || !isRoot)("get_firewall_ruleset", () => {
    const table = `hg_r24c_${process.pid}`;
    beforeAll(() => {
      // An empty table with one chain and no hook: filters nothing, removed in afterAll.
      sh(["nft", "add", "table", "inet", table]);
      sh(["nft", "add", "chain", "inet", table, "probe"]);
      sh(["nft", "add", "rule", "inet", table, "probe", "tcp", "dport", "2222", "accept"]);
    });
    afterAll(() => {
      spawnSync("nft", ["delete", "table", "inet", table]);
      (ctx.host as { close?: () => void }).close?.(); // the probe's kept nft (adapters/nft-session.ts)
    });

    it("equals `nft -j list ruleset` (metainfo aside) and counts the planted table's chain and rule", async () => {
      const out = await getFirewallRuleset.run({}, ctx);
      const nft = (JSON.parse(sh(["nft", "-j", "list", "ruleset"])) as { nftables: Record<string, unknown>[] }).nftables.filter((o) => !("metainfo" in o));
      expect(out.ruleset).toEqual(nft);
      expect(out.tables).toContainEqual({ family: "inet", name: table, chains: 1, rules: 1, sets: 0 });
    });

    it("answers the ruleset as it is at each call (the kept nft never answers a stale one)", async () => {
      sh(["nft", "add", "chain", "inet", table, "probe2"]);
      expect((await getFirewallRuleset.run({}, ctx)).tables).toContainEqual({ family: "inet", name: table, chains: 2, rules: 1, sets: 0 });
      sh(["nft", "delete", "chain", "inet", table, "probe2"]);
      expect((await getFirewallRuleset.run({}, ctx)).tables).toContainEqual({ family: "inet", name: table, chains: 1, rules: 1, sets: 0 });
    });
  });

  describe("check_tcp_connect", () => {
    let server: Server;
    let port = 0;
    beforeAll(async () => {
      server = createServer((s) => s.destroy());
      await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => { r(); }));
      port = (server.address() as { port: number }).port;
    });
    afterAll(() => { server.close(); });

    it("connects to a listening socket and is refused by a closed port (the same answers as a bash /dev/tcp connect)", async () => {
      const open = await checkTcpConnect.run(checkTcpConnect.params.parse({ target: "127.0.0.1", port }), ctx);
      expect(open).toMatchObject({ connected: true, address: "127.0.0.1", error: null });
      const bashOpen = spawnSync("bash", ["-c", `exec 3<>/dev/tcp/127.0.0.1/${port}`]).status;
      expect(bashOpen).toBe(0);
      await new Promise<void>((r) => server.close(() => { r(); }));
      const closed = await checkTcpConnect.run(checkTcpConnect.params.parse({ target: "127.0.0.1", port }), ctx);
      expect(closed).toMatchObject({ connected: false, error: "ECONNREFUSED" });
      expect(spawnSync("bash", ["-c", `exec 3<>/dev/tcp/127.0.0.1/${port}`]).status).not.toBe(0);
      server = createServer();
    });

    it("refuses a timeout above 5 s and a host with shell or URL characters", () => {
      expect(checkTcpConnect.params.safeParse({ target: "127.0.0.1", port: 22, timeout_ms: 60_000 }).success).toBe(false);
      expect(checkTcpConnect.params.safeParse({ target: "http://127.0.0.1/", port: 22 }).success).toBe(false);
      expect(checkTcpConnect.params.safeParse({ target: "a b", port: 22 }).success).toBe(false);
      expect(checkTcpConnect.params.safeParse({ target: "::1", port: 0 }).success).toBe(false);
      expect(checkTcpConnect.min_role).toBe("operator");
    });

    it("a probe without tcpConnect (an SSH host) answers unavailable", async () => {
      // The SSH probe has no tcpConnect: the same probe with the method hidden.
      const host = new Proxy(ctx.host, { get: (t, k) => (k === "tcpConnect" ? undefined : Reflect.get(t, k, t) as unknown) });
      expect(await errorCode(() => checkTcpConnect.run(checkTcpConnect.params.parse({ target: "127.0.0.1", port: 1 }), { ...ctx, host }))).toBe("unavailable");
    });
  });
});

describe.skipIf(!has("dpkg-query"))("packages (Debian)", () => {
  it("list_installed_packages over every page equals `dpkg-query -W` of the installed (ii) packages", async () => {
    const rows: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await listInstalledPackages.run(listInstalledPackages.params.parse({ limit: 300, cursor }), ctx);
      rows.push(...page.packages.map((p) => `${p.name}:${p.architecture ?? ""} ${p.version}`));
      cursor = page.next_cursor ?? undefined;
      pages++;
    } while (cursor !== undefined);
    const dpkg = sh(["dpkg-query", "-W", "-f=${db:Status-Abbrev}\t${Package}:${Architecture} ${Version}\n"]).split("\n").filter((l) => l.startsWith("ii")).map((l) => l.split("\t")[1]!);
    expect(rows.sort()).toEqual(dpkg.sort());
    expect(pages).toBeGreaterThan(1);
  });

  it("list_installed_packages filters by substring and rejects a bad cursor and a regex filter", async () => {
    const out = await listInstalledPackages.run(listInstalledPackages.params.parse({ name: "openssl" }), ctx);
    expect(out.packages.length).toBeGreaterThan(0);
    expect(out.packages.every((p) => p.name.includes("openssl"))).toBe(true);
    expect(await errorCode(() => listInstalledPackages.run(listInstalledPackages.params.parse({ cursor: "bogus" }), ctx))).toBe("invalid_params");
    expect(listInstalledPackages.params.safeParse({ name: "ssl.*" }).success).toBe(false);
  });

  it("list_package_files equals `dpkg -L` (dpkg's own /. entry aside); an absent package is not_found", async () => {
    const out = await listPackageFiles.run(listPackageFiles.params.parse({ name: "coreutils", limit: 5000 }), ctx);
    const dpkg = sh(["dpkg", "-L", "coreutils"]).split("\n").filter((l) => l !== "" && l !== "/.");
    expect(out.files).toEqual(dpkg);
    expect(out.total).toBe(dpkg.length);
    expect(await errorCode(() => listPackageFiles.run(listPackageFiles.params.parse({ name: "hg-no-such-package" }), ctx))).toBe("not_found");
    expect(listPackageFiles.params.safeParse({ name: "../etc/shadow" }).success).toBe(false);
  });

  it("list_upgradable_packages equals `apt list --upgradable` (names, versions, -security suites marked)", async () => {
    // A first apt-get run beyond the action's wait budget answers `timeout` and goes on: calling again joins it.
    const upgradable = async (args: Record<string, unknown>) => {
      for (let i = 0; ; i++) {
        try {
          return await listUpgradablePackages.run(listUpgradablePackages.params.parse(args), ctx);
        } catch (err) {
          if ((err as { code?: string }).code !== "timeout" || i >= 20) throw err;
        }
      }
    };
    const out = await upgradable({ limit: 1000 });
    const apt = sh(["apt", "list", "--upgradable"]).split("\n").filter((l) => l.includes("[upgradable from:"))
      .map((l) => { const m = /^([^/]+)\/(\S+) (\S+) \S+ \[upgradable from: ([^\]]+)\]/.exec(l)!; return { name: m[1]!, suites: m[2]!.split(","), to: m[3]!, from: m[4]! }; });
    expect(out.upgrades.map((u) => `${u.name} ${u.from_version} ${u.to_version}`).sort()).toEqual(apt.map((a) => `${a.name} ${a.from} ${a.to}`).sort());
    expect(out.upgrades.filter((u) => u.security).map((u) => u.name).sort()).toEqual(apt.filter((a) => a.suites.some((s) => s.endsWith("-security"))).map((a) => a.name).sort());
    const sec = await upgradable({ security_only: true, limit: 1000 });
    expect(sec.total).toBe(out.security_total);
    expect(sec.computed_at, "the second call answers from the first one's run").toBe(out.computed_at);
  }, 180_000); // one apt simulation (the second call is cached) and apt list: ≈ 20–50 s each on this shared 2-core machine under load
});

describe.skipIf(!has("journalctl"))("logs", () => {
  it("get_journal_disk_usage agrees with `journalctl --disk-usage` (its one-decimal human size)", async () => {
    const out = await getJournalDiskUsage.run({}, ctx);
    const text = sh(["journalctl", "--disk-usage"]);
    const m = /take up ([0-9.]+)([BKMGT])/.exec(text);
    expect(m).not.toBeNull();
    const unit = { B: 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3, T: 1024 ** 4 }[m![2] as "B"];
    const theirs = Number(m![1]) * unit;
    expect(Math.abs(out.total_bytes - theirs)).toBeLessThanOrEqual(unit === 1 ? 0 : unit * 0.05 + 1);
    expect(out.directories.reduce((n, d) => n + d.bytes, 0)).toBe(out.total_bytes);
  });
});
