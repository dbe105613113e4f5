import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Environment for a front with its own embedded daemon: fresh state and runtime directories, so a test never
 * shares (or disturbs) the daemon of the user running it or of another test.
 */
export function isolatedEnv(label: string): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), `hg-${label}-${process.pid}-`));
  return { HOSTGATE_STATE_DIR: join(dir, "state"), HOSTGATE_RUNTIME_DIR: join(dir, "run") };
}
