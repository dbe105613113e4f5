/**
 * Imported first by bench/run.ts into every benchmark process (`node --import`): gives the run the same hermetic
 * environment vitest.config.ts gives tests, so a benchmark never pins an audit key under /etc/hostgate, never reads
 * the machine's /etc/hostgate/config.yaml and never joins a system daemon.
 * - HOSTGATE_CONFIG_DIR: a fresh scratch directory (removed at exit; moves /etc/hostgate, daemon/paths.ts);
 * - HOSTGATE_CHECKPOINT_COPY: a file in it;
 * - HOSTGATE_DAEMON=embedded: fronts start their own daemon.
 * Values already set by the caller are kept.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execFileSync } from "node:child_process";

if (!process.env.HOSTGATE_CONFIG_DIR) {
  const scratch = mkdtempSync(join(tmpdir(), "hostgate-bench-config-"));
  process.env.HOSTGATE_CONFIG_DIR = scratch;
  process.env.HOSTGATE_CHECKPOINT_COPY ??= join(scratch, "audit-checkpoints.jsonl");
  process.on("exit", () => {
    try {
      execFileSync("chattr", ["-a", join(scratch, "audit-checkpoints.jsonl")], { stdio: "ignore" }); // a system-mode daemon makes it append-only
    } catch {
      // absent, or not append-only
    }
    rmSync(scratch, { recursive: true, force: true });
  });
}
process.env.HOSTGATE_DAEMON ??= "embedded";
