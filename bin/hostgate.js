#!/usr/bin/env -S node --max-semi-space-size=1
// Thin launcher (the shebang keeps the young generation small: resident memory of a long-running stdio
// server; see bench/mcp-stdio.ts). Runs the compiled build (dist/, made by `npm run build`, which `npm test`,
// `npm start` and `npm pack` run first) so clients that spawn hostgate get a fast cold start. In a checkout
// without a build it runs the TypeScript sources through tsx (a dev dependency: the published package ships
// dist/ and needs neither).
import { existsSync } from "node:fs";

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
