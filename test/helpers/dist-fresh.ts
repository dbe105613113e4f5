import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/**
 * What scripts/build.mjs reads: a change in any of these makes dist/ stale. Directories are walked (every file
 * under them); package.json and the lockfile stand for the dependencies bundled into dist/.
 */
const BUILD_INPUTS = ["src", "native", "scripts/build.mjs", "scripts/prebuild.ts", "scripts/build-helper.ts", "scripts/zod-locales-en.ts",
  "scripts/sdk-shims-node.ts", "package.json", "package-lock.json"] as const;

/** The newest modification time (ms since the epoch) of `path`, a file or a directory walked to its files; 0 when absent. */
function newestMtime(path: string): number {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = 0;
  for (const e of readdirSync(path, { withFileTypes: true })) newest = Math.max(newest, newestMtime(join(path, e.name)));
  return newest;
}

/**
 * Why the build in `root`/dist is not fresh, or null when it is: fresh means dist/hostgate.js and
 * dist/prebuilt.json exist (the bundle and the table written after it, so a build that stopped half-way is not
 * fresh) and no file of BUILD_INPUTS is newer than dist/hostgate.js (scripts/build.mjs empties dist/ first, so
 * the bundle is at most as old as the build). `npm test` builds first (pretest), so a test that would rebuild
 * (npm pack's prepack) can skip it when this says null, and must not wipe dist/ under test files running beside it.
 */
export function distStale(root: string): string | null {
  const bundle = join(root, "dist", "hostgate.js");
  if (!existsSync(bundle)) return "no dist/hostgate.js";
  if (!existsSync(join(root, "dist", "prebuilt.json"))) return "no dist/prebuilt.json (a build that did not finish)";
  const built = statSync(bundle).mtimeMs;
  const newer = BUILD_INPUTS.filter((p) => newestMtime(join(root, p)) > built);
  return newer.length > 0 ? `changed since the build: ${newer.join(", ")}` : null;
}
