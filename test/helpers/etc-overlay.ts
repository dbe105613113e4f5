import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startDaemon, type DaemonProcess } from "./daemon.ts";

/**
 * A real `hostgate daemon` in a network namespace of the test and a private mount namespace whose /etc is an
 * overlay: the host's /etc below, `upper` (a directory of the test) above, so the daemon may change /etc files
 * and the host's own stay untouched. `setup` fills `upper` first; `sshd` starts a real sshd (its
 * /etc/ssh/sshd_config from `upper`) in the same view before the daemon.
 */
export interface EtcBox { ns: string; work: string; upper: string; d: DaemonProcess; sshdPid: () => number | null }

export async function openEtcBox(tag: string, configYaml: string, opts: { setup?: (upper: string, work: string) => void; sshd?: boolean } = {}): Promise<EtcBox> {
  const ns = `hg${tag}${process.pid}`;
  const work = mkdtempSync(join(tmpdir(), `hg-etcbox-${tag}-`));
  const upper = join(work, "upper");
  mkdirSync(upper);
  mkdirSync(join(work, "ow"));
  opts.setup?.(upper, work);
  execFileSync("ip", ["netns", "add", ns]);
  execFileSync("ip", ["-n", ns, "link", "set", "lo", "up"]);
  if (opts.sshd) mkdirSync("/run/sshd", { recursive: true });
  const sshd = opts.sshd ? `/usr/sbin/sshd -E ${work}/sshd.log && ` : "";
  const wrap = ["ip", "netns", "exec", ns, "unshare", "--mount", "--propagation", "private", "sh", "-c",
    `mount -t overlay overlay -o lowerdir=/etc,upperdir=${upper},workdir=${work}/ow /etc && mount -t tmpfs -o mode=700 tmpfs /root && ${sshd}exec "$@"`, "sh"];
  const d = await startDaemon(configYaml, { wrap });
  const sshdPid = (): number | null => (existsSync(join(work, "sshd.pid")) ? Number(readFileSync(join(work, "sshd.pid"), "utf8").trim()) : null);
  return { ns, work, upper, d, sshdPid };
}

/** Stops the daemon and the box's sshd (by its pid file), deletes the namespace and the directory. */
export async function closeEtcBox(b: EtcBox | undefined): Promise<void> {
  if (!b) return;
  await b.d.stop();
  const pid = b.sshdPid();
  if (pid !== null) try { process.kill(pid, "SIGTERM"); } catch { /* gone */ }
  try { execFileSync("ip", ["netns", "delete", b.ns]); } catch { /* gone */ }
  rmSync(b.work, { recursive: true, force: true });
}

/** Runs argv in the daemon's network and mount namespaces (its view of /etc); stdout. */
export function inBox(b: EtcBox, argv: string[]): string {
  return execFileSync("nsenter", ["-t", String(b.d.child.pid), "-m", "-n", ...argv], { encoding: "utf8" });
}
