/**
 * Issue 22: `npm start` stopped by a signal to npm must not leave `hostgate serve` running. npm forwards SIGINT
 * and SIGTERM to its script, and that script used to be `sh -c "node … serve"`: the signal killed sh (or sh
 * ignored it) and serve stayed, re-parented; on SIGHUP npm exits without forwarding anything. Real npm, real
 * serve with its embedded daemon on fresh state/runtime directories; npm runs in a process group of its own and
 * only npm's pid is signalled. Every descendant of npm seen before the signal must be gone after it.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isolatedEnv } from "../helpers/isolated-env.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const cleanup: (() => void)[] = [];
afterAll(() => { for (const c of cleanup) c(); });

/** Parent pid of `pid` from /proc/<pid>/stat, or null when it is gone or a zombie (exited, not yet reaped). */
function parentOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return state === "Z" ? null : Number(ppid);
  } catch {
    return null;
  }
}

/** Every live descendant of `root`, walking /proc. */
function descendants(root: number): number[] {
  const parents = new Map<number, number>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const pp = parentOf(Number(name));
    if (pp !== null) parents.set(Number(name), pp);
  }
  const out: number[] = [];
  const walk = (p: number): void => { for (const [c, pp] of parents) if (pp === p) { out.push(c); walk(c); } };
  walk(root);
  return out;
}

/** `npm start` (without the prestart build: the tests run against the dist/ already built) until serve listens. */
async function startNpm(): Promise<{ npm: ChildProcess; stderr: () => string }> {
  const dir = mkdtempSync(join(tmpdir(), "hg-npm-start-"));
  cleanup.push(() => { rmSync(dir, { recursive: true, force: true }); });
  const env: Record<string, string> = { ...process.env as Record<string, string>, ...isolatedEnv("npm-start"), XDG_CONFIG_HOME: join(dir, "config"), HOSTGATE_DAEMON: "embedded" };
  delete env.HOSTGATE_SOCKET;
  delete env.HOSTGATE_CONFIG;
  const npm = spawn("npm", ["start", "--ignore-scripts", "--", "--port", "0"], { cwd: ROOT, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  cleanup.push(() => { try { process.kill(-npm.pid!, "SIGKILL"); } catch { /* gone */ } });
  let err = "";
  npm.stdout.on("data", () => undefined);
  await new Promise<void>((done, fail) => {
    const timer = setTimeout(() => { fail(new Error(`serve did not start: ${err}`)); }, 60_000);
    npm.stderr.on("data", (c: Buffer) => {
      err += c.toString();
      if (/listening on http/.test(err)) { clearTimeout(timer); done(); }
    });
    npm.once("exit", (code) => { clearTimeout(timer); fail(new Error(`npm exited ${code}: ${err}`)); });
  });
  return { npm, stderr: () => err };
}

/** Waits until none of `pids` is alive, or 15 s; returns those still alive (with their command lines). */
async function survivors(pids: number[]): Promise<string[]> {
  const alive = (): number[] => pids.filter((p) => parentOf(p) !== null);
  for (let i = 0; i < 150 && alive().length > 0; i++) await new Promise((r) => setTimeout(r, 100));
  return alive().map((p) => `${p} ${existsSync(`/proc/${p}/cmdline`) ? readFileSync(`/proc/${p}/cmdline`, "utf8").replace(/\0/g, " ") : ""}`);
}

describe("npm start ends with its npm (issue 22)", () => {
  it("the start script execs node: no shell between npm and serve to swallow a forwarded signal", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> };
    expect(pkg.scripts.start).toMatch(/^exec node bin\/hostgate\.js serve$/);
  });

  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
    it(`${signal} to npm alone: serve and every other descendant of npm is gone`, async () => {
      const { npm, stderr } = await startNpm();
      const before = descendants(npm.pid!);
      // serve (with its embedded daemon, in-process) runs under npm.
      expect(before.some((p) => readFileSync(`/proc/${p}/cmdline`, "utf8").includes("hostgate.js\0serve")), stderr()).toBe(true);
      process.kill(npm.pid!, signal);
      expect(await survivors(before), stderr()).toEqual([]);
      expect(stderr()).toContain("hostgate: stopping (");
    });
  }
});
