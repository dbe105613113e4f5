// The state lock against real processes: a live holder (a child `sleep`), a dead one, and a pid that now names
// another process than the one that wrote the lock (what a daemon killed before releasing it leaves after a reboot).
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { acquireStateLock } from "./state-lock.ts";

const dirs: string[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill("SIGKILL");
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const stateDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), `hg-state-lock-${process.pid}-`));
  dirs.push(d);
  return d;
};
/** A live process that is not this one, and its identity as proc(5) gives it (boot id, start time in ticks). */
const liveOther = (): { pid: number; identity: string } => {
  const child = spawn("sleep", ["60"], { stdio: "ignore" });
  children.push(child);
  const stat = readFileSync(`/proc/${child.pid}/stat`, "utf8");
  const start = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]!;
  return { pid: child.pid!, identity: `${readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim()} ${start}` };
};

describe("acquireStateLock", () => {
  it("records pid (alone, as every version reads it) and identity, refuses while that process lives, and releases its own lock", () => {
    const dir = stateDir();
    const lock = join(dir, "daemon.lock");
    const release = acquireStateLock(dir);
    expect(readFileSync(lock, "utf8")).toBe(`${process.pid}\n`);
    expect(readFileSync(`${lock}.id`, "utf8")).toMatch(new RegExp(`^${process.pid} [0-9a-f-]{36} \\d+\n$`));
    release();
    expect(existsSync(lock)).toBe(false);
    expect(existsSync(`${lock}.id`)).toBe(false);

    const other = liveOther();
    writeFileSync(lock, `${other.pid}\n`);
    writeFileSync(`${lock}.id`, `${other.pid} ${other.identity}\n`);
    expect(() => acquireStateLock(dir)).toThrow(`Another hostgate daemon (pid ${other.pid}) owns the state`);
    // Without an identity for that pid (an older version's lock, or one being written) the pid alone decides.
    writeFileSync(`${lock}.id`, `${other.pid + 1} ${other.identity}\n`);
    expect(() => acquireStateLock(dir)).toThrow(`pid ${other.pid}`);
    rmSync(`${lock}.id`);
    expect(() => acquireStateLock(dir)).toThrow(`pid ${other.pid}`);
  });

  it("takes over a lock whose pid now names another process (reused after a reboot or a wrap), or no process", () => {
    const dir = stateDir();
    const other = liveOther();
    const [boot, start] = other.identity.split(" ");
    const lock = join(dir, "daemon.lock");
    // Same pid, another start time: the process that wrote the lock is gone and its pid was given to another.
    writeFileSync(lock, `${other.pid}\n`);
    writeFileSync(`${lock}.id`, `${other.pid} ${boot} ${Number(start) + 1}\n`);
    acquireStateLock(dir)();
    // Same pid and start time but another boot: written before a reboot.
    writeFileSync(lock, `${other.pid}\n`);
    writeFileSync(`${lock}.id`, `${other.pid} 00000000-0000-0000-0000-000000000000 ${start}\n`);
    const release = acquireStateLock(dir);
    expect(readFileSync(lock, "utf8")).toBe(`${process.pid}\n`);
    release();
    // A pid no process has (above the kernel's pid_max).
    writeFileSync(lock, "4194305\n");
    acquireStateLock(dir)();
  });
});
