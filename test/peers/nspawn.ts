// A real PID-1 systemd booted with systemd-nspawn from the cached rootfs (TESTING-PEERS.md, recipe 1).
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { alive, childrenOf, signal, waitFor, whichSync } from "./proc.ts";
import { PEER_STARTED, writePeerUnits } from "./test-units.ts";

/** The rootfs version scripts/build-rootfs.sh builds (its VERSION): v2 adds openssh-server and sudo. */
export const ROOTFS_VERSION = 2;

/** Where scripts/build-rootfs.sh caches the rootfs (outside git), keyed by {@link ROOTFS_VERSION}. */
export const ROOTFS_CACHE = process.env.HOSTGATE_ROOTFS_CACHE ?? `/var/cache/hostgate-test/rootfs-v${ROOTFS_VERSION}`;

/** A booted container. `leaderPid` is the container's PID 1 as seen from the host. */
export interface NspawnPeer {
  pid: number;
  leaderPid: number;
  machine: string;
  busAddress: string;
  /** Root of the container file system from the host (/proc/<leader>/root). */
  fileRoot: string;
  dir: string;
  /** Runs argv inside the container (nsenter into all namespaces of PID 1). */
  exec(argv: string[]): { stdout: string; status: number | null };
  stop(): Promise<void>;
}

function commOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
  } catch {
    return "";
  }
}

/** Why the peer cannot start here, or null. */
export function nspawnPrereqs(): string | null {
  if (process.getuid?.() !== 0) return "needs root";
  if (whichSync("systemd-nspawn") === null) return "no systemd-nspawn (apt-get install systemd-container)";
  if (whichSync("nsenter") === null || whichSync("unshare") === null) return "no nsenter/unshare (util-linux)";
  if (!existsSync(join(ROOTFS_CACHE, ".complete"))) return `no cached rootfs at ${ROOTFS_CACHE} (run scripts/build-rootfs.sh; needs debootstrap)`;
  return null;
}

/**
 * Copies the cached rootfs, installs the test units, boots it with a private network (or in the network
 * namespace at `netnsPath`, e.g. /run/netns/NAME, which the caller created) and waits for boot to finish.
 * `nspawnArgs` are extra systemd-nspawn options (e.g. `--bind-ro=/usr/bin/node` to make a host program
 * available inside); `prepare(root)` may write into the copy before it boots.
 */
export async function startNspawn(opts: { nspawnArgs?: string[]; netnsPath?: string; prepare?: (root: string) => void } = {}): Promise<NspawnPeer> {
  const dir = mkdtempSync(join(tmpdir(), "hg-nspawn-"));
  const root = join(dir, "root");
  const cp = spawnSync("cp", ["-a", ROOTFS_CACHE, root]);
  if (cp.status !== 0) throw new Error(`cp -a ${ROOTFS_CACHE} failed: ${cp.stderr.toString()}`);
  writePeerUnits(join(root, "etc", "systemd", "system"));
  opts.prepare?.(root);
  const network = opts.netnsPath !== undefined ? `--network-namespace-path=${opts.netnsPath}` : "--private-network";
  const machine = `hg${process.pid}x${Math.floor(Math.random() * 1e6)}`;
  const log = openSync(join(dir, "console.log"), "a");
  const child = spawn("unshare", ["--mount", "--propagation", "private", "sh", "-c", 'mount -t tmpfs tmpfs /run/systemd && exec "$@"', "sh",
    "systemd-nspawn", "-D", root, "--register=no", "--keep-unit", "-M", machine, network, ...(opts.nspawnArgs ?? []), "-b", "--console=pipe"], {
    stdio: ["ignore", log, log],
    detached: true,
  });
  const pid = child.pid!;
  child.unref();
  let leaderPid = 0;
  const stop = async () => {
    signal(pid, "SIGTERM"); // nspawn asks the container's systemd to power off
    await waitFor(`nspawn ${pid} to exit`, () => !alive(pid), 10_000).catch(() => undefined);
    if (alive(pid)) signal(pid, "SIGKILL");
    if (leaderPid > 0 && alive(leaderPid)) signal(leaderPid, "SIGKILL");
    await waitFor("container PID 1 to exit", () => leaderPid === 0 || !alive(leaderPid), 5000).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    // nspawn forks a short-lived outer child first; the container's PID 1 is the child running systemd.
    await waitFor("container PID 1 (systemd)", () => (leaderPid = childrenOf(pid).find((c) => commOf(c) === "systemd") ?? 0) > 0, 15_000);
    const fileRoot = `/proc/${leaderPid}/root`;
    await waitFor("the container's system bus", () => existsSync(`${fileRoot}/run/dbus/system_bus_socket`), 20_000);
    const exec = (argv: string[]) => {
      const r = spawnSync("nsenter", ["-t", String(leaderPid), "-a", ...argv], { encoding: "utf8", timeout: 30_000 });
      return { stdout: r.stdout, status: r.status };
    };
    exec(["systemctl", "is-system-running", "--wait"]);
    const started = exec(["systemctl", "start", "--", ...PEER_STARTED]);
    if (started.status !== 0) throw new Error(`starting test units failed in ${machine}`);
    return { pid, leaderPid, machine, busAddress: `unix:path=${fileRoot}/run/dbus/system_bus_socket`, fileRoot, dir, exec, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
