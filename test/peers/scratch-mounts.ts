// The real machine with scratch copies of some directories: a holder process in a private mount namespace
// (unshare --mount) where /etc (and whatever else a test names) is an overlay whose upper layer is a temp
// directory, and /home a tmpfs. Real useradd, gpasswd, apt-mark… run inside it (nsenter -m) and change only
// the overlay: this machine's own accounts and package selections never change. Files are read through
// /proc/<pid>/root, which resolves paths in that namespace's mounts.
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { nodeCrypto } from "../../src/adapters/crypto-node.ts";
import { LinuxHostProbe } from "../../src/adapters/host-linux.ts";
import { LinuxHostMutator } from "../../src/adapters/host-mutator-linux.ts";
import { createMockUnitManagers } from "../../src/adapters/systemd-mock.ts";
import type { ActionContext } from "../../src/core/catalogue/action.ts";
import type { HostMutator } from "../../src/ports/host-mutator.ts";
import type { HostProbe, RunOptions } from "../../src/ports/host-probe.ts";
import { alive, waitFor, whichSync } from "./proc.ts";

/** A running scratch namespace. */
export interface ScratchMounts {
  pid: number;
  /** An ActionContext whose probe reads and runs inside the namespace and whose mutator runs there. */
  ctx: ActionContext;
  /** Runs argv inside the namespace (as root); stdout, stderr, status. */
  exec(argv: string[]): { stdout: string; stderr: string; status: number | null };
  /** A path as seen from outside (through /proc/<pid>/root). */
  outside(path: string): string;
  stop(): Promise<void>;
}

/** Why the peer cannot start here, or null. */
export function scratchPrereqs(): string | null {
  if (process.getuid?.() !== 0) return "needs root (mount namespaces, overlayfs)";
  if (whichSync("unshare") === null || whichSync("nsenter") === null) return "no unshare/nsenter (util-linux)";
  const probe = spawnSync("unshare", ["--mount", "--propagation", "private", "sh", "-c", "d=$(mktemp -d) && mkdir $d/u $d/w && mount -t overlay overlay -o lowerdir=/etc,upperdir=$d/u,workdir=$d/w /etc; r=$?; rm -rf $d; exit $r"], { stdio: "ignore", timeout: 10_000 });
  return probe.status === 0 ? null : "overlayfs over /etc cannot be mounted here";
}

/** A probe that reads files under /proc/<pid>/root and runs programs through nsenter into the namespace. */
function scratchProbe(pid: number): HostProbe {
  const inner = new LinuxHostProbe();
  // /proc/self is the holder (its mountinfo is the namespace's); other /proc paths are the shared procfs.
  const at = (p: string): string => (p.startsWith("/proc/self/") ? `/proc/${pid}/${p.slice(11)}` : p.startsWith("/proc/") ? p : `/proc/${pid}/root${p}`);
  const inNs = (argv: readonly string[]): string[] => ["nsenter", "-t", String(pid), "-m", "--", ...argv];
  return {
    readText: (p, o) => inner.readText(at(p), o),
    readTailConfined: (p, w, o) => inner.readTailConfined(at(p), at(w), o),
    readRecords: (p, o) => inner.readRecords(at(p), o),
    readDir: (p) => inner.readDir(at(p)),
    readLink: (p) => inner.readLink(at(p)),
    // The holder shares this process's root, so the kernel already names the resolved path without the prefix.
    realPath: async (p) => {
      const r = await inner.realPath(at(p));
      return r.startsWith(`/proc/${pid}/root/`) ? r.slice(`/proc/${pid}/root`.length) : r;
    },
    stat: (p) => inner.stat(at(p)),
    statFs: (p) => inner.statFs(at(p)),
    networkAddresses: () => inner.networkAddresses(),
    run: async (argv: readonly string[], o?: RunOptions) => ({ ...(await inner.run(inNs(argv), o)), argv: [...argv] }),
    which: (n) => inner.which(n),
  };
}

/**
 * The real mutator, on the namespace's paths (/proc/<pid>/root…) for files under its scratch directories and on the
 * shared file system for any other; programs run inside the namespace through the probe.
 */
function scratchMutator(pid: number, host: HostProbe, scratch: readonly string[]): HostMutator {
  const real = new LinuxHostMutator();
  const at = (p: string): string => (scratch.some((d) => p === d || p.startsWith(`${d}/`)) ? `/proc/${pid}/root${p}` : p);
  return {
    writeFileAtomic: (p, c, o) => real.writeFileAtomic(at(p), c, { ...o, ...(o.expectedRealDir === undefined ? {} : { expectedRealDir: at(o.expectedRealDir) }) }),
    removeFile: (p, o) => real.removeFile(at(p), { ...o, expectedRealDir: at(o.expectedRealDir) }),
    writeSysctl: () => Promise.reject(new Error("the scratch namespace does not change kernel settings")),
    // Not mapped: the root-only walk starts at this process's `/` (a /proc/<pid>/root prefix is a link it refuses).
    createRootFile: (p, o) => (scratch.some((d) => p === d || p.startsWith(`${d}/`)) ? Promise.reject(new Error("createRootFile under a scratch directory is not supported")) : real.createRootFile(p, o)),
    signal: (p, s) => real.signal(p, s),
    run: (argv, o) => host.run(argv, o),
  };
}

/**
 * Starts the holder: `overlays` are directories given a writable overlay (default /etc), `tmpfs` get an empty
 * tmpfs (default /home). Stop it with `stop()` (kills the holder by pid, removes the temp directory).
 */
export async function startScratchMounts(opts: { overlays?: string[]; tmpfs?: string[] } = {}): Promise<ScratchMounts> {
  const dir = mkdtempSync(join(tmpdir(), "hg-scratch-"));
  const lines: string[] = ["set -e"];
  for (const [i, d] of (opts.overlays ?? ["/etc"]).entries()) {
    mkdirSync(join(dir, `u${i}`));
    mkdirSync(join(dir, `w${i}`));
    lines.push(`mount -t overlay overlay -o lowerdir=${d},upperdir=${dir}/u${i},workdir=${dir}/w${i} ${d}`);
  }
  for (const d of opts.tmpfs ?? ["/home"]) lines.push(`mount -t tmpfs -o mode=755 tmpfs ${d}`);
  lines.push(`touch ${dir}/ready`, "exec sleep 86400");
  const child = spawn("unshare", ["--mount", "--propagation", "private", "sh", "-c", lines.join("\n")], { stdio: "ignore", detached: true });
  const pid = child.pid!;
  child.unref();
  const stop = async (): Promise<void> => {
    if (alive(pid)) process.kill(pid, "SIGKILL");
    await waitFor("the scratch holder to exit", () => !alive(pid), 5000).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitFor("the scratch mounts", () => spawnSync("test", ["-e", `${dir}/ready`]).status === 0, 10_000);
  } catch (e) {
    await stop();
    throw e;
  }
  const host = scratchProbe(pid);
  const ctx: ActionContext = {
    host, clock: { now: () => Date.now() }, family: "debian", units: createMockUnitManagers(), mutator: scratchMutator(pid, host, [...(opts.overlays ?? ["/etc"]), ...(opts.tmpfs ?? ["/home"])]), hash: nodeCrypto,
    self_pid: process.pid, protected_paths: [], logs_readable: { kind: "all" },
  };
  const exec = (argv: string[]) => {
    const r = spawnSync("nsenter", ["-t", String(pid), "-m", "--", ...argv], { encoding: "utf8", timeout: 60_000 });
    return { stdout: r.stdout, stderr: r.stderr, status: r.status };
  };
  return { pid, ctx, exec, outside: (p) => `/proc/${pid}/root${p}`, stop };
}
