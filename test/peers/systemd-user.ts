// A real `systemd --user` manager in a temp dir (TESTING-PEERS.md, recipe 2), with the test units.
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, openSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stopTree, waitFor, whichSync } from "./proc.ts";
import { PEER_STARTED, writePeerUnits } from "./test-units.ts";

/** A running user manager. Stop it with `stop()` (by PID). */
export interface UserManagerPeer {
  pid: number;
  busAddress: string;
  runtimeDir: string;
  /** The login name its resources use (the test runs as root). */
  user: string;
  dir: string;
  stop(): Promise<void>;
}

/** Why the peer cannot start here, or null. */
export function userManagerPrereqs(): string | null {
  if (process.getuid?.() !== 0) return "needs root (private mount namespace for /run/systemd)";
  if (!existsSync("/lib/systemd/systemd")) return "no /lib/systemd/systemd (apt-get install systemd)";
  if (whichSync("unshare") === null) return "no unshare (util-linux)";
  if (!existsSync("/usr/lib/systemd/user/dbus.socket")) return "no user bus unit (apt-get install dbus-user-session)";
  return null;
}

/** Starts `systemd --user` with XDG_RUNTIME_DIR and XDG_CONFIG_HOME in a temp dir; waits for its bus. */
export async function startUserManager(): Promise<UserManagerPeer> {
  const dir = mkdtempSync(join(tmpdir(), "hg-user-"));
  const runtimeDir = join(dir, "run");
  mkdirSync(runtimeDir, { mode: 0o700 });
  chmodSync(runtimeDir, 0o700);
  writePeerUnits(join(runtimeDir, "systemd", "user"));
  const log = openSync(join(dir, "manager.log"), "a");
  const child = spawn("unshare", ["--mount", "--propagation", "private", "sh", "-c",
    "mount -t tmpfs tmpfs /run/systemd && mkdir -p /run/systemd/system && exec /lib/systemd/systemd --user"], {
    env: { ...process.env, XDG_RUNTIME_DIR: runtimeDir, XDG_CONFIG_HOME: join(dir, "config"), HOME: dir, SYSTEMD_LOG_LEVEL: "notice" },
    stdio: ["ignore", log, log],
    detached: true,
  });
  const pid = child.pid!;
  child.unref();
  const stop = async () => {
    await stopTree(pid, 5000);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitFor("the user bus socket", () => existsSync(join(runtimeDir, "bus")), 10_000);
    const busAddress = `unix:path=${join(runtimeDir, "bus")}`;
    const { DbusUnitManager } = await import("../../src/adapters/systemd-dbus.ts");
    const m = new DbusUnitManager({ busAddress, ref: { scope: "user", user: "root" } });
    try {
      for (const u of PEER_STARTED) await m.startUnit(u, { timeoutMs: 10_000 });
    } finally {
      await m.close();
    }
    return { pid, busAddress, runtimeDir, user: "root", dir, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
