import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDaemon, type DaemonProcess } from "../helpers/daemon.ts";
import { HOSTGATE_BIN } from "../helpers/hostgate.ts";

// Review (s24): `hostgate pending` run by a user the daemon's sockets refuse was told "no daemon is running" (or
// pointed at another daemon, otherDaemonHint) although a daemon was there and had refused. A real daemon whose
// agent socket admits group nogroup and whose admin socket admits group adm; the CLI (dist build) run as uid 65534
// through setpriv, finding the daemon by the usual rule (HOSTGATE_RUNTIME_DIR names the daemon's runtime directory,
// as /run/hostgate would be): once in the agent socket's group, once in neither group.

const ETC = mkdtempSync(join(tmpdir(), "hg-pending-refused-"));
chmodSync(ETC, 0o755);
const CONFIG = join(ETC, "config.yaml");
writeFileSync(CONFIG, "{}\n", { mode: 0o644 });
const gid = (name: string): number => Number(spawnSync("getent", ["group", name], { encoding: "utf8" }).stdout.split(":")[2]);

describe("hostgate pending refused by the daemon's sockets says how to get access, never that no daemon runs", () => {
  let d: DaemonProcess;
  beforeAll(async () => {
    d = await startDaemon("daemon:\n  agent_group: nogroup\n  admin_group: adm\n");
    chmodSync(d.dir, 0o755); // so the second uid reaches the sockets and meets their own modes
  }, 30_000);
  afterAll(async () => {
    await d?.stop();
    if (d) rmSync(d.dir, { recursive: true, force: true });
    rmSync(ETC, { recursive: true, force: true });
  });

  /** `hostgate pending` as uid 65534 with primary group `group` and no other groups. */
  function pendingAs(group: number): { status: number | null; stderr: string } {
    const r = spawnSync("setpriv", ["--reuid", "65534", "--regid", String(group), "--clear-groups", process.execPath, HOSTGATE_BIN, "pending", "--config", CONFIG], {
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: "/nonexistent", HOSTGATE_CONFIG_DIR: ETC, HOSTGATE_RUNTIME_DIR: join(d.dir, "run"), HOSTGATE_STATE_DIR: join(ETC, "state") },
      timeout: 30_000,
    });
    return { status: r.status, stderr: r.stderr };
  }

  it("in the agent socket's group, refused by the admin socket's group: join that group (adm) or use sudo; no other-daemon hint", () => {
    const r = pendingAs(gid("nogroup"));
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain(`Permission denied: ${d.adminSocket}`);
    expect(r.stderr).toMatch(/group adm/);
    expect(r.stderr).toMatch(/sudo/);
    expect(r.stderr).not.toMatch(/no daemon/i);
    expect(r.stderr).not.toMatch(/A plan made through another daemon/);
  });

  it("in neither group: the daemon is there and refuses; not read from a state directory as if none ran", () => {
    const r = pendingAs(12345);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/Permission denied/);
    expect(r.stderr).toMatch(/sudo/);
    expect(r.stderr).not.toMatch(/no daemon/i);
    expect(r.stderr).not.toMatch(/A plan made through another daemon/);
  });
});
