// Issue 24 part 1: list_installed_packages and list_upgradable_packages answer from a per-host cache keyed by
// the files they are computed from. Real files and real package tools; the probe is the real LinuxHostProbe
// with a few paths pointed at files this test plants (dpkg's status file, an apt lists directory), and its
// reads and spawns counted.
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, renameSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import listInstalledPackages, { DPKG_STATUS } from "../../src/core/catalogue/actions/list-installed-packages.ts";
import listUpgradablePackages, { UPGRADE_WAIT_MS } from "../../src/core/catalogue/actions/list-upgradable-packages.ts";
import type { ActionContext } from "../../src/core/catalogue/action.ts";
import type { HostProbe } from "../../src/ports/host-probe.ts";
import { errorCode, realContext } from "../helpers/real-context.ts";

const has = (tool: string): boolean => spawnSync("sh", ["-c", `command -v ${tool}`]).status === 0;

/** The real probe with `paths` redirected (exact paths, or a directory prefix) and reads/spawns counted. */
function plantedProbe(base: HostProbe, paths: Record<string, string>, gate?: Promise<void>): { host: HostProbe; reads: string[]; runs: string[][] } {
  const reads: string[] = [];
  const runs: string[][] = [];
  const map = (p: string): string => {
    for (const [from, to] of Object.entries(paths)) if (p === from || p.startsWith(`${from}/`)) return to + p.slice(from.length);
    return p;
  };
  const host = new Proxy(base, {
    get(t, k) {
      if (k === "readText") return (p: string, o?: object) => { reads.push(p); return t.readText(map(p), o); };
      if (k === "stat") return (p: string) => t.stat(map(p));
      if (k === "readDir") return (p: string) => t.readDir(map(p));
      if (k === "run") return async (argv: readonly string[], o?: object) => { runs.push([...argv]); await gate; return t.run(argv, o); };
      return Reflect.get(t, k, t) as unknown;
    },
  });
  return { host, reads, runs };
}

let base: ActionContext;
let work: string;
beforeAll(async () => {
  base = await realContext();
  work = mkdtempSync(join(tmpdir(), "hg-pkg-cache-"));
});
afterAll(() => { rmSync(work, { recursive: true, force: true }); });

describe.skipIf(!has("dpkg-query"))("list_installed_packages cache (Debian)", () => {
  it("parses the status file once while it is unchanged, again after it is replaced; answers follow the planted file", async () => {
    const status = join(work, "status");
    copyFileSync(DPKG_STATUS, status);
    const { host, reads } = plantedProbe(base.host, { [DPKG_STATUS]: status });
    const ctx = { ...base, host };
    const first = await listInstalledPackages.run(listInstalledPackages.params.parse({ name: "coreutils" }), ctx);
    const again = await listInstalledPackages.run(listInstalledPackages.params.parse({ name: "coreutils" }), ctx);
    expect(again).toEqual(first);
    expect(reads.filter((p) => p === DPKG_STATUS)).toHaveLength(1);
    const dpkg = execFileSync("dpkg-query", ["-W", "-f=${Version}", "coreutils"], { encoding: "utf8" });
    expect(first.packages.find((p) => p.name === "coreutils")?.version).toBe(dpkg);

    // dpkg's way: write a new file and rename it over the old one (new inode), same size and mtime kept.
    const planted = `Package: hg-planted-x24\nStatus: install ok installed\nArchitecture: all\nVersion: 9.9-1\nInstalled-Size: 4\n\n`;
    const next = join(work, "status-new");
    writeFileSync(next, planted);
    renameSync(next, status);
    const after = await listInstalledPackages.run(listInstalledPackages.params.parse({}), ctx);
    expect(reads.filter((p) => p === DPKG_STATUS)).toHaveLength(2);
    expect(after.packages).toEqual([{ name: "hg-planted-x24", version: "9.9-1", architecture: "all", installed_size_bytes: 4096 }]);

    // Rewritten in place with another size: the size changes the key.
    writeFileSync(status, planted.replace("9.9-1", "10.0-12"));
    expect((await listInstalledPackages.run(listInstalledPackages.params.parse({}), ctx)).packages[0]?.version).toBe("10.0-12");
    expect(reads.filter((p) => p === DPKG_STATUS)).toHaveLength(3);
  });

  it("each host probe has its own cache: another probe parses its own status file", async () => {
    const a = join(work, "status-a");
    const b = join(work, "status-b");
    writeFileSync(a, "Package: hg-a\nStatus: install ok installed\nVersion: 1\n\n");
    writeFileSync(b, "Package: hg-b\nStatus: install ok installed\nVersion: 2\n\n");
    const pa = plantedProbe(base.host, { [DPKG_STATUS]: a });
    const pb = plantedProbe(base.host, { [DPKG_STATUS]: b });
    expect((await listInstalledPackages.run(listInstalledPackages.params.parse({}), { ...base, host: pa.host })).packages.map((p) => p.name)).toEqual(["hg-a"]);
    expect((await listInstalledPackages.run(listInstalledPackages.params.parse({}), { ...base, host: pb.host })).packages.map((p) => p.name)).toEqual(["hg-b"]);
  });
});

describe.skipIf(!has("apt-get"))("list_upgradable_packages cache (Debian)", () => {
  it(`spawns apt-get once, answers again from the cache, says how old the index is; a changed lists file runs it again; a run beyond ${UPGRADE_WAIT_MS / 1000} s is timeout and the next call answers from that same run`, async () => {
    const lists = join(work, "lists");
    execFileSync("cp", ["-a", "/var/lib/apt/lists", lists]);
    let release!: () => void;
    const gate = new Promise<void>((r) => { release = r; });
    const { host, runs } = plantedProbe(base.host, { "/var/lib/apt/lists": lists }, gate);
    const ctx = { ...base, host };
    const aptRuns = (): number => runs.filter((a) => a.some((x) => x.endsWith("apt-get"))).length;

    // The gate holds apt-get back: the call gives up at the budget and says to call again.
    const t0 = Date.now();
    expect(await errorCode(() => listUpgradablePackages.run(listUpgradablePackages.params.parse({}), ctx))).toBe("timeout");
    expect(Date.now() - t0).toBeGreaterThanOrEqual(UPGRADE_WAIT_MS - 50);
    release();
    // apt-get without its binary cache takes 10–20 s here: calling again while it runs joins that run.
    const answer = async () => {
      for (let i = 0; ; i++) {
        try {
          return await listUpgradablePackages.run(listUpgradablePackages.params.parse({ limit: 1000 }), ctx);
        } catch (err) {
          if ((err as { code?: string }).code !== "timeout" || i >= 20) throw err;
        }
      }
    };
    const first = await answer();
    expect(aptRuns()).toBe(1);

    const newest = Math.max(...execFileSync("find", [lists, "-maxdepth", "1", "-type", "f", "-printf", "%T@\n"], { encoding: "utf8" }).trim().split("\n").map((s) => Math.round(Number(s) * 1000)));
    expect(first.index_updated_at).toBe(new Date(newest).toISOString());
    expect(Math.abs(first.index_age_s! - (Date.now() - newest) / 1000)).toBeLessThanOrEqual(2);

    const again = await listUpgradablePackages.run(listUpgradablePackages.params.parse({ limit: 1000 }), ctx);
    expect(again.upgrades).toEqual(first.upgrades);
    expect(again.computed_at).toBe(first.computed_at);
    expect(aptRuns()).toBe(1);

    // A planted Packages file appears in the lists directory: the index changed, so apt-get runs again.
    const plantedAt = new Date(Date.now() - 60_000);
    writeFileSync(join(lists, "hg.example_dists_x24_main_binary-amd64_Packages"), "");
    utimesSync(join(lists, "hg.example_dists_x24_main_binary-amd64_Packages"), plantedAt, plantedAt);
    const third = await answer();
    expect(aptRuns()).toBe(2);
    expect(third.upgrades).toEqual(first.upgrades);
    expect(third.computed_at >= first.computed_at).toBe(true);
  }, 240_000);
});
