#!/usr/bin/env node
// Thin launcher. Runs the compiled build (dist/, made by `npm run build`, which `npm test`,
// `npm start` and `npm pack` run first) so clients that spawn hostgate get a fast cold start. In a checkout
// without a build it runs the TypeScript sources through tsx (a dev dependency: the published package ships
// dist/ and needs neither).
import { existsSync } from "node:fs";
import { setFlagsFromString } from "node:v8";

// V8 settings that keep a long-running hostgate (mcp, serve, daemon) small however it is started (`hostgate`,
// `node bin/hostgate.js`, npx): set first, before any module allocates or any WebAssembly is compiled. Issue 14:
// resident memory ≤ 90 MB after 2,000 mixed calls (bench/front-cost.ts); start-up CPU was unchanged.
// - --liftoff-only: WebAssembly (the risk engine's tree-sitter-bash, Cedar) stays on V8's baseline compiler;
//   tier-up recompiled the 1.4 MB bash parser's hot functions with TurboFan for ≈ 40 MB more resident memory
//   and no gain measured (parse p50 ≈ 15 µs either way, 4,000 parses).
// - --semi-space-growth-factor=1: the young generation keeps its initial 1 MB semispaces instead of growing
//   to 16 MB each under allocation (≈ 45 MB); `--max-semi-space-size=1` does the same but only as a command-line
//   flag, which a client's `node bin/hostgate.js` does not pass.
setFlagsFromString("--liftoff-only");
setFlagsFromString("--semi-space-growth-factor=1");

const compiled = new URL("../dist/hostgate.js", import.meta.url);
if (existsSync(compiled)) {
  await import(compiled.href);
} else {
  let register;
  try {
    ({ register } = await import("tsx/esm/api"));
  } catch {
    process.stderr.write("hostgate: no build in dist/ and no tsx to run the sources: run `npm run build` in the hostgate directory.\n");
    process.exit(2);
  }
  register();
  await import("../src/bin/hostgate.ts");
}
