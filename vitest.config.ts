import { defineConfig } from "vitest/config";
import { tmpdir } from "node:os";
import { join } from "node:path";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // Audit keys are pinned in the configuration directory at a daemon's first start: keep tests' pins out of ~/.config.
    env: { HOSTGATE_CONFIG_DIR: join(tmpdir(), `hostgate-test-config-${process.pid}`) },
    testTimeout: 60_000,
    hookTimeout: 180_000,
    pool: "forks",
    reporters: ["default", "json"],
    outputFile: { json: ".test-results/results.json" },
  },
});
