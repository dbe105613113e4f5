import { defineConfig } from "vitest/config";
import { tmpdir } from "node:os";
import { join } from "node:path";

// Per run: where test daemons pin audit keys and (system mode) copy checkpoints, instead of ~/.config and
// /var/log/hostgate, and where the system config file would be; removed by test/global-setup.ts (the copy is
// made append-only, chattr +a).
const scratch = join(tmpdir(), `hostgate-test-config-${process.pid}`);

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // HOSTGATE_DAEMON=embedded: a test's front or CLI never joins a system daemon running on this machine (what
    // setup writes into every client entry; .ci/decoy.sh runs one during CI). HOSTGATE_CONFIG_DIR also moves the
    // system config file (/etc/hostgate/config.yaml), so none is read either.
    env: { HOSTGATE_CONFIG_DIR: scratch, HOSTGATE_CHECKPOINT_COPY: join(scratch, "audit-checkpoints.jsonl"), HOSTGATE_DAEMON: "embedded" },
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 180_000,
    pool: "forks",
    reporters: ["default", "json"],
    outputFile: { json: ".test-results/results.json" },
  },
});
