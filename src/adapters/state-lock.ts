import { closeSync, openSync, readFileSync, unlinkSync, writeSync, mkdirSync } from "node:fs";
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
 * One daemon per state directory: a pid file created with O_EXCL (`daemon.lock`). A lock whose process is
 * gone is taken over; a live one is refused with `unavailable`, so two daemons never append to one audit
 * chain. Returns the release function.
 */
export function acquireStateLock(stateDir: string): () => void {
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const path = join(stateDir, "daemon.lock");
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, "wx", 0o600);
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      return () => {
        try {
          if (readFileSync(path, "utf8").trim() === String(process.pid)) unlinkSync(path);
        } catch {
          // already gone
        }
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw new HostgateError("unavailable", `Cannot create ${path}: ${(err as Error).message}`);
      const holder = Number(readFileSync(path, "utf8").trim());
      if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && alive(holder)) {
        throw new HostgateError("unavailable", `Another hostgate daemon (pid ${holder}) owns the state in ${stateDir}.`, {
          hint: "Use that daemon (HOSTGATE_SOCKET), stop it, or give this one another state.dir.",
        });
      }
      unlinkSync(path); // stale: its process is gone
    }
  }
  throw new HostgateError("unavailable", `Cannot take the state lock ${path}.`);
}
