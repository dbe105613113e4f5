import { ensurePrivateDir } from "./private-files.ts";
import { closeSync, openSync, readFileSync, rmSync, unlinkSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { HostgateError } from "../core/errors.ts";

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Which process a pid names right now, independent of the wall clock: this boot's id and the process's start
 * time in clock ticks since boot (proc(5): /proc/sys/kernel/random/boot_id, field 22 of /proc/<pid>/stat).
 * A pid reused after the holder died (after a reboot, or when pids wrap) gives another value. Null when /proc
 * cannot say (the caller then trusts the pid alone).
 */
function processIdentity(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name, which is in parentheses and may itself hold spaces or parentheses.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const start = fields[19];
    const boot = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
    return start && /^\d+$/.test(start) && boot ? `${boot} ${start}` : null;
  } catch {
    return null;
  }
}

/**
 * One daemon per state directory: a pid file created with O_EXCL (`daemon.lock`, the pid alone, as every
 * version reads it) and beside it `daemon.lock.id`: the pid and the process's identity (processIdentity). A
 * lock whose process is gone is taken over, and so is one whose pid now names another process (a daemon killed
 * before it could release the lock, its pid reused after a reboot or a wrap); a live holder is refused with
 * `unavailable`, so two daemons never append to one audit chain. Without an identity for that pid (a lock of an
 * older version, or one being written), the pid alone decides. Returns the release function.
 */
export function acquireStateLock(stateDir: string): () => void {
  ensurePrivateDir(stateDir);
  const path = join(stateDir, "daemon.lock");
  const idPath = `${path}.id`;
  const read = (file: string): string | null => { try { return readFileSync(file, "utf8"); } catch { return null; } };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, "wx", 0o600);
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      writeFileSync(idPath, `${process.pid} ${processIdentity(process.pid) ?? ""}\n`, { mode: 0o600 });
      return () => {
        try {
          if (readFileSync(path, "utf8").trim() === String(process.pid)) { unlinkSync(path); rmSync(idPath, { force: true }); }
        } catch {
          // already gone
        }
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw new HostgateError("unavailable", `Cannot create ${path}: ${(err as Error).message}`);
      const holder = Number(readFileSync(path, "utf8").trim());
      const [idPid, ...identity] = (read(idPath) ?? "").trim().split(" ");
      const recorded = Number(idPid) === holder && identity.length > 0 ? identity.join(" ") : null;
      const now = recorded ? processIdentity(holder) : null;
      const sameProcess = recorded === null || now === null || now === recorded;
      if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && alive(holder) && sameProcess) {
        throw new HostgateError("unavailable", `Another hostgate daemon (pid ${holder}) owns the state in ${stateDir}.`, {
          hint: "Use that daemon (HOSTGATE_SOCKET), stop it, or give this one another state.dir.",
        });
      }
      unlinkSync(path); // stale: its process is gone, or the pid now names another process
    }
  }
  throw new HostgateError("unavailable", `Cannot take the state lock ${path}.`);
}
