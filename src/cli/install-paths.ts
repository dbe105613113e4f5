import { existsSync, readFileSync, realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { onPath } from "../adapters/client-files.ts";

/** The directory of the installed hostgate package (holds package.json, bin/, dist/). */
export function packageRoot(from: string = fileURLToPath(import.meta.url)): string {
  let dir = dirname(from);
  for (;;) {
    const pkg = join(dir, "package.json");
    if (existsSync(pkg)) {
      try {
        if ((JSON.parse(readFileSync(pkg, "utf8")) as { name?: string }).name === "hostgate") return dir;
      } catch { /* keep looking */ }
    }
    const up = dirname(dir);
    if (up === dir) throw new Error(`cannot find hostgate's package.json above ${from}`);
    dir = up;
  }
}

/**
 * What an MCP client should spawn: the absolute Node.js binary and the absolute launcher (bin/hostgate.js),
 * so the entry works when the client starts it with no PATH (the launcher's `#!/usr/bin/env node` needs one).
 * Run through `npx hostgate setup`, this package lives in npx's cache, which npm may delete: a global install
 * of hostgate on PATH is preferred then, and otherwise a warning says how to make the path last.
 */
export function launcher(env: NodeJS.ProcessEnv = process.env): { node: string; script: string; warning?: string } {
  const node = realpathSync(process.execPath);
  const own = realpathSync(join(packageRoot(), "bin", "hostgate.js"));
  if (!own.includes("/_npx/")) return { node, script: own };
  const global = onPath("hostgate", env);
  if (global !== null) {
    const script = realpathSync(global);
    if (!script.includes("/_npx/")) return { node, script };
  }
  return { node, script: own, warning: `hostgate runs from npx's cache (${dirname(dirname(own))}), which npm may clean: install it for good with \`npm i -g hostgate\` and run \`hostgate setup\` again.` };
}
