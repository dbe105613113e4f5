import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ActionContext, MutatingAction, Preview } from "../../src/core/catalogue/action.ts";
import holdPackage from "../../src/core/catalogue/actions/hold-package.ts";
import unholdPackage from "../../src/core/catalogue/actions/unhold-package.ts";
import upgradePackages from "../../src/core/catalogue/actions/upgrade-packages.ts";
import { errorCode } from "../helpers/real-context.ts";
import { peerMissing } from "../helpers/peers.ts";
import { scratchPrereqs, startScratchMounts, type ScratchMounts } from "../peers/scratch-mounts.ts";

// Real apt-get, apt-mark and dpkg on this machine, inside a private mount namespace whose /etc, /usr, /var/lib/dpkg,
// /var/lib/apt, /var/cache/apt and /var/log are overlays (test/peers/scratch-mounts.ts), with a local file:
// repository holding two versions of a tiny package built here with dpkg-deb. The machine's packages never change.
const skip = peerMissing("package upgrade/hold actions in a scratch mount namespace", scratchPrereqs()
  ?? (!existsSync("/usr/bin/apt-get") || !existsSync("/usr/bin/dpkg-deb") || !existsSync("/usr/bin/dpkg-scanpackages") ? "needs apt-get, dpkg-deb and dpkg-scanpackages (dpkg-dev)" : null));

const PKG = "hgtest-upgrade";
const types = (p: Preview): { action: string; name: string; from_version: string | null; to_version: string | null }[] => (p.intended as { changes: never[] }).changes;

async function cycle(a: MutatingAction, params: unknown, ctx: ActionContext): Promise<{ first: Preview; out: unknown; second: Preview }> {
  const parsed = a.params.parse(params);
  const first = await a.preview(parsed, ctx);
  expect(JSON.stringify(await a.preview(parsed, ctx))).toBe(JSON.stringify(first));
  const out = await a.apply(parsed, ctx, first);
  return { first, out, second: await a.preview(parsed, ctx) };
}

/** Builds PKG at `version` into `repo` with dpkg-deb. */
function buildDeb(work: string, repo: string, version: string): void {
  const root = join(work, `pkg-${version}`);
  mkdirSync(join(root, "DEBIAN"), { recursive: true });
  mkdirSync(join(root, "usr", "share", PKG), { recursive: true });
  writeFileSync(join(root, "DEBIAN", "control"), `Package: ${PKG}\nVersion: ${version}\nArchitecture: all\nMaintainer: hostgate tests <t@example.invalid>\nDescription: hostgate test package\n`);
  writeFileSync(join(root, "usr", "share", PKG, "version"), `${version}\n`);
  const r = spawnSync("dpkg-deb", ["--root-owner-group", "--build", root, join(repo, `${PKG}_${version}_all.deb`)], { encoding: "utf8" });
  expect(r.status, r.stderr).toBe(0);
}

describe.skipIf(skip)("UpgradePackages, HoldPackage, UnholdPackage with real apt in a scratch namespace", () => {
  let s: ScratchMounts;
  let work: string;
  const installed = (): string => s.exec(["dpkg-query", "-W", "-f=${Version}", PKG]).stdout;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "hg-repo-"));
    const repo = join(work, "repo");
    mkdirSync(repo);
    buildDeb(work, repo, "1.0");
    buildDeb(work, repo, "2.0");
    const idx = spawnSync("dpkg-scanpackages", [".", "/dev/null"], { cwd: repo, encoding: "utf8" });
    writeFileSync(join(repo, "Packages"), idx.stdout);
    s = await startScratchMounts({ overlays: ["/etc", "/usr", "/var/lib/dpkg", "/var/lib/apt", "/var/cache/apt", "/var/log"] });
    const setup = s.exec(["sh", "-c", [
      "set -e", "rm -f /etc/apt/sources.list", "rm -rf /etc/apt/sources.list.d", "mkdir /etc/apt/sources.list.d",
      `echo 'deb [trusted=yes] file:${repo} ./' > /etc/apt/sources.list.d/hg.list`,
      "apt-get -o APT::Sandbox::User=root update -qq 2>&1",
      `dpkg -i ${repo}/${PKG}_1.0_all.deb >/dev/null`,
    ].join("\n")]);
    expect(setup.status, setup.stdout + setup.stderr).toBe(0);
  }, 120_000);
  afterAll(async () => {
    await s?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it("UpgradePackages of a named package: apt-get -s lists 1.0 → 2.0, apply upgrades it, the second preview has nothing to do", async () => {
    expect(installed()).toBe("1.0");
    const { first, out, second } = await cycle(upgradePackages, { names: [PKG] }, s.ctx);
    expect(types(first)).toEqual([expect.objectContaining({ action: "upgrade", name: PKG, from_version: "1.0", to_version: "2.0" })]);
    expect(first.text).toContain(`will run: apt-get -y -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold install --only-upgrade --no-install-recommends -- ${PKG}`);
    expect(first.text).toContain(`(simulated with: apt-get -s install --only-upgrade --no-install-recommends -- ${PKG})`);
    expect(out).toMatchObject({ changed: 1, exit_code: 0 });
    expect(installed()).toBe("2.0");
    expect(readFileSync(s.outside(`/usr/share/${PKG}/version`), "utf8")).toBe("2.0\n");
    expect(existsSync(`/usr/share/${PKG}`)).toBe(false); // this machine's /usr is untouched
    expect(second.summary).toBe(`Upgrade ${PKG}: nothing to do`);
    expect(types(second)).toEqual([]);
  });

  it("HoldPackage holds (apt-mark showhold lists it), UpgradePackages then skips it with a warning, UnholdPackage releases it", async () => {
    s.exec(["dpkg", "-i", "--force-downgrade", join(work, "repo", `${PKG}_1.0_all.deb`)]);
    expect(installed()).toBe("1.0");
    const hold = await cycle(holdPackage, { name: PKG }, s.ctx);
    expect(hold.first.summary).toBe(`Hold ${PKG} 1.0`);
    expect(hold.first.text).toContain(`will run: apt-mark hold ${PKG}`);
    expect(s.exec(["apt-mark", "showhold"]).stdout.split("\n")).toContain(PKG);
    expect(hold.second.summary).toBe(`Hold ${PKG}: nothing to do (already held)`);
    const held = await upgradePackages.preview({ names: [PKG] }, s.ctx);
    expect(held.summary).toBe("Upgrade (none): nothing to do");
    expect(held.warnings?.[0]).toMatch(new RegExp(`Held, left as they are: ${PKG}`));
    const all = await upgradePackages.preview({}, s.ctx);
    expect(types(all).map((c) => c.name)).not.toContain(PKG);
    const unhold = await cycle(unholdPackage, { name: PKG }, s.ctx);
    expect(unhold.first.text).toContain(`will run: apt-mark unhold ${PKG}`);
    expect(s.exec(["apt-mark", "showhold"]).stdout.split("\n")).not.toContain(PKG);
    expect(unhold.second.summary).toBe(`Unhold ${PKG}: nothing to do (not held)`);
    expect(types(await upgradePackages.preview({}, s.ctx))).toContainEqual(expect.objectContaining({ name: PKG, from_version: "1.0", to_version: "2.0" }));
  });

  it("refusals: a package that is not installed, names that could be options, an empty list", async () => {
    expect(await errorCode(() => upgradePackages.preview({ names: ["hgtest-not-installed"] }, s.ctx))).toBe("not_found");
    expect(await errorCode(() => holdPackage.preview({ name: "hgtest-not-installed" }, s.ctx))).toBe("not_found");
    expect(upgradePackages.params.safeParse({ names: ["-oAPT::x=1"] }).success).toBe(false);
    expect(upgradePackages.params.safeParse({ names: [] }).success).toBe(false);
    expect(holdPackage.params.safeParse({ name: "--all" }).success).toBe(false);
  });
});
