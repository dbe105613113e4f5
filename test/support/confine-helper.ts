import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildConfineHelper } from "../../src/adapters/confine-helper.ts";

/**
 * The hostgate-confine helper compiled from native/confine-helper.c for this test process (built at test time,
 * into a temp dir removed at exit): `{ path }`, or `{ reason }` when it cannot be built here (no cc).
 */
let built: { path: string } | { reason: string } | undefined;
export function testConfineHelper(): { path: string } | { reason: string } {
  if (built) return built;
  const dir = mkdtempSync(join(tmpdir(), "hg-confine-helper-"));
  process.on("exit", () => { rmSync(dir, { recursive: true, force: true }); });
  try {
    built = { path: buildConfineHelper(join(dir, "hostgate-confine")) };
  } catch (e) {
    built = { reason: (e as Error).message };
  }
  return built;
}

/** The local sandbox mechanisms a suite runs under: bubblewrap, and the helper where it builds (else a note on stderr). */
export function localMechanisms(): { name: "bwrap" | "hostgate-confine"; local_helper: string | undefined }[] {
  const h = testConfineHelper();
  if ("reason" in h) process.stderr.write(`SKIPPING the hostgate-confine variant: ${h.reason}\n`);
  return [{ name: "bwrap", local_helper: undefined }, ...("path" in h ? [{ name: "hostgate-confine" as const, local_helper: h.path }] : [])];
}
