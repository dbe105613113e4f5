import { execFileSync } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Removes the run's scratch configuration directory (vitest.config.ts: HOSTGATE_CONFIG_DIR and
 * HOSTGATE_CHECKPOINT_COPY point into it). The checkpoint copy a system-mode test daemon wrote there is
 * append-only (chattr +a), so the flag is cleared first.
 */
export function setup(): () => void {
  return () => {
    // The same path vitest.config.ts computed in this (main) process.
    const dir = join(tmpdir(), `hostgate-test-config-${process.pid}`);
    const copy = join(dir, "audit-checkpoints.jsonl");
    if (existsSync(copy)) {
      try {
        execFileSync("chattr", ["-a", copy], { stdio: "ignore" });
      } catch {
        // not append-only, or no chattr: rm below says if it cannot
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
}
