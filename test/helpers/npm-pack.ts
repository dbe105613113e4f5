import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { distStale } from "./dist-fresh.ts";

/** package.json's prepack begins with the build; what follows it (`&&`) are the other prepack steps. */
const BUILD_STEP = "node scripts/build.mjs";

/**
 * `npm pack <args>` in the checkout `root`, without emptying a fresh dist/ under the test files running beside
 * the caller (npm runs prepack, which rebuilds dist/, even for `--dry-run`). When dist/ is fresh ({@link distStale}
 * null) npm is given --ignore-scripts and package.json's own hooks run around it instead, minus the build: the
 * steps of `prepack` after `node scripts/build.mjs` (npm-shrinkwrap.json written) before, and `postpack` after,
 * even when npm pack fails. When dist/ is stale npm runs its hooks itself, the build included. Returns npm pack's
 * spawnSync result (encoding utf8). Throws when a hook fails, or when prepack does not begin with the build.
 */
export function npmPack(root: string, args: readonly string[], timeoutMs: number): SpawnSyncReturns<string> {
  const pack = (extra: string[]): SpawnSyncReturns<string> =>
    spawnSync("npm", ["pack", ...args, ...extra], { cwd: root, encoding: "utf8", timeout: timeoutMs, maxBuffer: 64 << 20 });
  if (distStale(root) !== null) return pack([]);
  const scripts = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: Record<string, string | undefined> }).scripts;
  const [build, ...rest] = (scripts.prepack ?? "").split("&&").map((s) => s.trim());
  if (build !== BUILD_STEP) throw new Error(`package.json's prepack does not begin with ${BUILD_STEP}: update test/helpers/npm-pack.ts`);
  const hook = (name: string, command: string): void => {
    if (command === "") return;
    const r = spawnSync("sh", ["-c", command], { cwd: root, encoding: "utf8", timeout: 60_000, env: { ...process.env, PATH: `${join(root, "node_modules", ".bin")}:${process.env.PATH ?? ""}` } });
    if (r.status !== 0) throw new Error(`${name} (${command}) failed: ${r.stderr}`);
  };
  hook("prepack", rest.join(" && "));
  try {
    return pack(["--ignore-scripts"]);
  } finally {
    hook("postpack", scripts.postpack ?? "");
  }
}
