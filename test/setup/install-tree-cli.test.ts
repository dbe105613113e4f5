// `hostgate daemon install` refuses when a non-root user could change what the root service would run (issue
// 22): a copy of this package (bin/, dist/, package.json; node_modules linked to the checkout's) handed to uid
// 65534 is refused before anything is written; --force installs with a loud warning. Only --dry-run is run:
// a real install changes the machine (test/setup/service.test.ts does that inside a container).
import { spawnSync } from "node:child_process";
import { chmodSync, chownSync, cpSync, existsSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const skip = process.getuid?.() !== 0 || !existsSync(join(ROOT, "dist", "hostgate.js"));
let dir: string;
let copy: string;

function install(bin: string, ...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const unitDir = join(dir, "units");
  const r = spawnSync(process.execPath, [bin, "daemon", "install", "--dry-run", "--unit-dir", unitDir, ...args], { encoding: "utf8", timeout: 60_000, env: { ...process.env, HOSTGATE_CONFIG: join(dir, "none.yaml") } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => {
  if (skip) return;
  dir = mkdtempSync(join(tmpdir(), "hg-install-"));
  chmodSync(dir, 0o755);
  copy = join(dir, "hostgate");
  for (const part of ["bin", "dist", "package.json"]) cpSync(join(ROOT, part), join(copy, part), { recursive: true });
  symlinkSync(join(ROOT, "node_modules"), join(copy, "node_modules"));
  chmodSync(copy, 0o755);
});
afterAll(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

describe.skipIf(skip)("daemon install: who else could change what root runs", () => {
  it("a tree only root can write installs (dry run: the units, no warning)", () => {
    const r = install(join(copy, "bin", "hostgate.js"));
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("[Service]");
    expect(r.stderr).not.toMatch(/non-root user could change/);
  });

  it("a dist/ file owned by another user: refused, the path and the fix named, nothing printed as installed", () => {
    const victim = join(copy, "dist", readdirSync(join(copy, "dist")).find((n) => n.endsWith(".js"))!);
    chownSync(victim, 65534, 65534);
    try {
      const r = install(join(copy, "bin", "hostgate.js"));
      expect(r.status).toBe(1);
      expect(r.stderr).toContain("refusing to install");
      expect(r.stderr).toContain(`${victim}: owned by uid 65534`);
      expect(r.stderr).toContain(`sudo chown -R root:root ${copy}`);
      expect(r.stdout).not.toContain("[Service]");
      const forced = install(join(copy, "bin", "hostgate.js"), "--force");
      expect(forced.status).toBe(0);
      expect(forced.stderr).toMatch(/WARNING: the daemon runs as root, and a non-root user could change what it runs/);
      expect(forced.stdout).toContain("[Service]");
    } finally {
      chownSync(victim, 0, 0);
    }
  });

  it("a group-writable launcher is refused the same way", () => {
    const bin = join(copy, "bin", "hostgate.js");
    chownSync(bin, 0, 100);
    chmodSync(bin, 0o775);
    try {
      const r = install(bin);
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(`${bin}: writable by group 100`);
    } finally {
      chmodSync(bin, 0o755);
      chownSync(bin, 0, 0);
    }
  });
});
