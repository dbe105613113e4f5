import { existsSync, readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import installPackage from "../../src/core/catalogue/actions/install-package.ts";
import removePackage from "../../src/core/catalogue/actions/remove-package.ts";
import updatePackageIndex from "../../src/core/catalogue/actions/update-package-index.ts";
import { installedVersions } from "../../src/core/catalogue/actions/package-tools.ts";
import { peerMissing } from "../helpers/peers.ts";
import { errorCode, realContext } from "../helpers/real-context.ts";

// Real `apt-get -s` (simulation only) on this Debian machine. Needs apt-get and a downloaded index.
const aptMissing = !existsSync("/usr/bin/apt-get") ? "apt-get is not installed"
  : !existsSync("/var/lib/apt/lists") || !readdirSync("/var/lib/apt/lists").some((f) => f.endsWith("_Packages") || f.includes("_Packages.")) ? "no apt package index (run apt-get update)" : null;
const hasAptIndex = !peerMissing("package actions with real apt-get -s", aptMissing);
const applyOptIn = process.env.HOSTGATE_TEST_APT_APPLY === "1" && process.getuid?.() === 0;
if (!applyOptIn) process.stderr.write("SKIPPING the real install + remove of hello: opt-in only (HOSTGATE_TEST_APT_APPLY=1, as root; it changes this machine)\n");

interface Change { action: string; name: string; from_version: string | null; to_version: string | null }
const changesOf = (intended: unknown): Change[] => (intended as { changes: Change[] }).changes;

describe.skipIf(!hasAptIndex)("package actions with real apt-get -s", () => {
  it("InstallPackage previews a not-installed package as an install with its candidate version, deterministically", async () => {
    const ctx = await realContext();
    expect((await installedVersions(ctx, ["hello"])).has("hello")).toBe(false);
    const a = await installPackage.preview({ name: "hello" }, ctx);
    const b = await installPackage.preview({ name: "hello" }, ctx);
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    const hello = changesOf(a.intended).find((c) => c.name === "hello");
    expect(hello).toMatchObject({ action: "install", from_version: null });
    expect(hello?.to_version).toMatch(/^\d/);
    expect(a.text).toContain("will run: apt-get -y -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold install --no-install-recommends -- hello");
    expect(a.text).toContain("(simulated with: apt-get -s install --no-install-recommends -- hello)");
    expect(a.warnings).toEqual([]);
    expect((await installedVersions(ctx, ["hello"])).has("hello")).toBe(false); // the preview installed nothing
  });

  it("InstallPackage of an unknown package is not_found", async () => {
    expect(await errorCode(async () => installPackage.preview({ name: "no-such-package-hostgate-xyz" }, await realContext()))).toBe("not_found");
  });

  it("RemovePackage of bash lists bash and warns loudly that it is essential", async () => {
    const preview = await removePackage.preview({ name: "bash" }, await realContext());
    expect(changesOf(preview.intended)).toContainEqual(expect.objectContaining({ action: "remove", name: "bash", to_version: null }));
    expect(preview.warnings?.some((w) => w.startsWith("ESSENTIAL") && w.includes("bash"))).toBe(true);
    expect(preview.text).toContain("WARNINGS:");
    expect(preview.text).toContain("will run: apt-get -y -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold remove -- bash");
  });

  it("RemovePackage with purge simulates apt-get purge; a not-installed package is nothing to do", async () => {
    const preview = await removePackage.preview({ name: "hello", purge: true }, await realContext());
    expect(preview.summary).toBe("Purge hello: nothing to do");
    expect(changesOf(preview.intended)).toEqual([]);
    expect(preview.text).toContain("(simulated with: apt-get -s purge -- hello)");
  });

  it("package names that could be options are rejected by the params schema", () => {
    expect(installPackage.params.safeParse({ name: "-oAPT::x=1" }).success).toBe(false);
    expect(removePackage.params.safeParse({ name: "bash", purge: "yes" }).success).toBe(false);
  });

  it("UpdatePackageIndex previews the configured sources and the last refresh time, deterministically", async () => {
    const ctx = await realContext();
    const a = await updatePackageIndex.preview({}, ctx);
    expect(JSON.stringify(a)).toBe(JSON.stringify(await updatePackageIndex.preview({}, ctx)));
    const current = a.current as { sources: { type: string; uri: string }[]; last_update: string | null };
    expect(current.sources.length).toBeGreaterThan(0);
    expect(current.sources.every((s) => s.type === "deb" && /^\w+:/.test(s.uri))).toBe(true);
    expect(current.last_update).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(a.text).toContain("will run: apt-get update");
  });

  // MUTATES THE HOST: installs and removes the tiny `hello` package for real. Opt-in only:
  // HOSTGATE_TEST_APT_APPLY=1 (needs root and network; about 60 s on the dev machine, so not run by default).
  it.skipIf(!applyOptIn)("REAL install + remove of hello (opt-in)", async () => {
    const ctx = await realContext();
    const installed = await installPackage.apply({ name: "hello" }, ctx, await installPackage.preview({ name: "hello" }, ctx));
    expect(installed.exit_code).toBe(0);
    expect((await installedVersions(ctx, ["hello"])).has("hello")).toBe(true);
    const removed = await removePackage.apply({ name: "hello", purge: true }, ctx, await removePackage.preview({ name: "hello", purge: true }, ctx));
    expect(removed.exit_code).toBe(0);
    expect((await installedVersions(ctx, ["hello"])).has("hello")).toBe(false);
  }, 120_000);
});
