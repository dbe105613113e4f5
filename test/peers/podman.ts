import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stopTree, waitFor } from "./proc.ts";

/**
 * podman's Docker-compatible API service on a private Unix socket (`podman system service`). Containers are
 * created with `--rootfs /` (no image needed) and a label carrying this run's pid. They cannot be started on
 * these machines (crun: setrlimit RLIMIT_NPROC is not permitted), so they stay in state "created".
 */
export interface PodmanPeer {
  socket: string;
  label: string;
  create(name: string, labels?: Record<string, string>): string;
  stop(): Promise<void>;
}

export function podmanPrereqs(): string | null {
  if (process.getuid?.() !== 0) return "needs root";
  if (!existsSync("/usr/bin/podman")) return "no /usr/bin/podman (apt-get install podman)";
  return null;
}

export async function startPodman(): Promise<PodmanPeer> {
  const dir = mkdtempSync(join(tmpdir(), `hg-hosts-podman-${process.pid}-`));
  const socket = join(dir, "podman.sock");
  const child = spawn("podman", ["system", "service", "--time=0", `unix://${socket}`], { stdio: "ignore", detached: true });
  child.unref();
  await waitFor("podman API socket", () => existsSync(socket), 15_000);
  const label = `hostgate.test=hosts-${process.pid}`;
  const names: string[] = [];
  return {
    socket,
    label,
    create: (name, labels = {}) => {
      const full = `hosts-${process.pid}-${name}`;
      const args = ["create", "--name", full, "--label", label, ...Object.entries(labels).flatMap(([k, v]) => ["--label", `${k}=${v}`]), "--network", "none", "--rootfs", "/", "true"];
      execFileSync("podman", args, { stdio: "ignore" });
      names.push(full);
      return full;
    },
    stop: async () => {
      if (names.length > 0) execFileSync("podman", ["rm", "-f", ...names], { stdio: "ignore" });
      await stopTree(child.pid!, 3000);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
