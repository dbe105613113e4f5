// Small process helpers for peers: polling, descendants, stop by PID.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { spawnSync } from "node:child_process";

/** Polls `pred` every 50 ms until true or `timeoutMs` passes (then throws with `what`). */
export async function waitFor(what: string, pred: () => boolean, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!pred()) {
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** PIDs of direct children of `pid` (from /proc/<pid>/task/<tid>/children). */
export function childrenOf(pid: number): number[] {
  const out: number[] = [];
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const text = readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8");
      for (const p of text.split(" ")) if (p.trim() !== "") out.push(Number(p));
    }
  } catch {
    // process gone
  }
  return out;
}

/** All descendants of `pid`, depth first. */
export function descendantsOf(pid: number): number[] {
  const out: number[] = [];
  const stack = childrenOf(pid);
  while (stack.length > 0) {
    const p = stack.pop()!;
    out.push(p);
    stack.push(...childrenOf(p));
  }
  return out;
}

/** True while /proc/<pid> exists and the process is not a zombie. */
export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/** Sends `sig` to `pid`, ignoring "no such process". */
export function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

/** SIGTERM `pid`, wait up to `graceMs`, then SIGKILL it and the descendants recorded before the stop. */
export async function stopTree(pid: number, graceMs: number): Promise<void> {
  const tree = descendantsOf(pid);
  signal(pid, "SIGTERM");
  await waitFor(`PID ${pid} to exit`, () => !alive(pid), graceMs).catch(() => undefined);
  for (const p of [pid, ...tree]) if (alive(p)) signal(p, "SIGKILL");
}

/** Absolute path of an executable on PATH or in the sbin dirs, or null. */
export function whichSync(name: string): string | null {
  for (const dir of (process.env.PATH ?? "").split(":").concat(["/usr/sbin", "/sbin", "/usr/bin", "/bin"])) {
    if (dir && existsSync(`${dir}/${name}`)) return `${dir}/${name}`;
  }
  return null;
}

/** Runs argv synchronously; returns stdout or throws with stderr. */
export function runSync(argv: string[], timeoutMs = 30_000): string {
  const r = spawnSync(argv[0]!, argv.slice(1), { encoding: "utf8", timeout: timeoutMs });
  if (r.status !== 0) throw new Error(`${argv.join(" ")} failed (${r.status ?? r.signal}): ${r.stderr}`);
  return r.stdout;
}

/** Whether tests must fail (not skip) when a peer's prerequisites are missing (CI sets HOSTGATE_REQUIRE_PEERS=1). */
export const REQUIRE_PEERS = process.env.HOSTGATE_REQUIRE_PEERS === "1";
