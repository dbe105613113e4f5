// Rootful podman that builds and runs real containers on these machines (test/packaging/image.test.ts), kept
// apart from the machine's own podman and from its mounts, networks and cgroups:
// - every podman command runs in one private mount namespace held by a `sleep` process of this session
//   (nsenter -m), so the overlay mounts podman makes, and the network namespaces it binds under /run/netns (a
//   tmpfs there), vanish with the holder; the cgroup2 hierarchy of this hybrid cgroup setup is unmounted there
//   only, because crun refuses hybrid mode ("drop all controllers from cgroupv2");
// - a containers.conf written here (CONTAINERS_CONF: podman reads it instead of the machine's): cgroups
//   disabled (nothing created under /sys/fs/cgroup), ulimits lowered (crun cannot raise them: no
//   CAP_SYS_RESOURCE here), no network by default; builds and runs pass --network none or slirp4netns
//   (user-mode networking: no bridge, no firewall rule on the machine);
// - a storage.conf (CONTAINERS_STORAGE_CONF) whose graph root is a cache outside git
//   (/var/cache/hostgate-test/podman-v1, where the imported base image stays between runs) and whose run root
//   is /run/hostgate-test/podman-v1.
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { alive, signal, waitFor, whichSync } from "./proc.ts";

/** Graph root of the test's podman storage (cached base image and layers), outside git. */
export const PODMAN_CACHE = process.env.HOSTGATE_PODMAN_CACHE ?? "/var/cache/hostgate-test/podman-v1";

/** Result of one podman command. */
export interface PodmanResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** A podman configuration and mount namespace of this test run. */
export interface PodmanSession {
  /** The command line (argv) that runs `podman ARGS` in this session, for a client that spawns it (stdio). */
  argv(args: string[]): string[];
  /** Environment the argv needs (CONTAINERS_CONF, CONTAINERS_STORAGE_CONF). */
  env: Record<string, string>;
  /** Runs `podman ARGS` to completion in this session (`env`: added to its environment, e.g. a value `-e NAME` passes on). */
  run(args: string[], opts?: { timeoutMs?: number; input?: string; env?: Record<string, string> }): PodmanResult;
  /** Removes the named containers and images (errors ignored), then ends the mount namespace. */
  stop(containers: string[], images: string[]): Promise<void>;
}

/** Why the session cannot start here, or null. */
export function podmanSessionPrereqs(): string | null {
  if (process.getuid?.() !== 0) return "needs root (rootful podman)";
  if (whichSync("podman") === null) return "no podman (apt-get install podman)";
  if (whichSync("slirp4netns") === null) return "no slirp4netns (apt-get install slirp4netns): the HTTP form publishes a port through it";
  if (whichSync("nsenter") === null || whichSync("unshare") === null) return "no nsenter/unshare (util-linux)";
  return null;
}

/** Starts the holder of the session's mount namespace and writes its podman configuration. */
export async function startPodmanSession(): Promise<PodmanSession> {
  const dir = mkdtempSync(join(tmpdir(), "hg-podman-"));
  const runRoot = `/run/hostgate-test/${PODMAN_CACHE.split("/").pop()!}`;
  mkdirSync(join(PODMAN_CACHE, "storage"), { recursive: true });
  mkdirSync(runRoot, { recursive: true, mode: 0o700 });
  writeFileSync(join(dir, "containers.conf"), [
    "[containers]",
    'cgroups = "disabled"',
    'default_ulimits = ["nofile=4096:4096", "nproc=4096:4096"]',
    'netns = "none"',
    "[engine]",
    'cgroup_manager = "cgroupfs"',
    'events_logger = "file"',
    `tmp_dir = "${runRoot}/libpod-tmp"`,
    "",
  ].join("\n"));
  writeFileSync(join(dir, "storage.conf"), ["[storage]", 'driver = "overlay"', `graphroot = "${PODMAN_CACHE}/storage"`, `runroot = "${runRoot}/storage"`, ""].join("\n"));
  const env = { CONTAINERS_CONF: join(dir, "containers.conf"), CONTAINERS_STORAGE_CONF: join(dir, "storage.conf") };
  const holder = spawn("unshare", ["--mount", "--propagation", "private", "sh", "-c",
    "umount /sys/fs/cgroup/unified 2>/dev/null; mkdir -p /run/netns && mount -t tmpfs -o mode=755 tmpfs /run/netns && echo ready && exec sleep 86400"], { stdio: ["ignore", "pipe", "inherit"], detached: true });
  let ready = false;
  holder.stdout.on("data", (c: Buffer) => { if (c.toString().includes("ready")) ready = true; });
  holder.unref();
  await waitFor("the podman session's mount namespace", () => ready || holder.exitCode !== null, 10_000);
  if (!ready) throw new Error(`the podman session's mount namespace did not start (exit ${holder.exitCode})`);
  const pid = holder.pid!;
  const argv = (args: string[]): string[] => ["nsenter", "-t", String(pid), "-m", "--", "podman", ...args];
  const run = (args: string[], opts: { timeoutMs?: number; input?: string; env?: Record<string, string> } = {}): PodmanResult => {
    const [cmd, ...rest] = argv(args);
    const r = spawnSync(cmd!, rest, { env: { ...process.env, ...env, ...opts.env }, encoding: "utf8", timeout: opts.timeoutMs ?? 120_000, input: opts.input ?? "", maxBuffer: 64 << 20 });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  return {
    argv,
    env,
    run,
    stop: async (containers, images) => {
      if (containers.length > 0) run(["rm", "-f", "-t", "2", ...containers]);
      if (images.length > 0) run(["rmi", "-f", ...images]);
      signal(pid, "SIGKILL");
      await waitFor("the podman session's holder to exit", () => !alive(pid), 5000).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
