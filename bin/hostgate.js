#!/usr/bin/env -S node --max-semi-space-size=1
// Thin launcher (the shebang keeps the young generation small: resident memory of a long-running stdio
// server; see bench/mcp-stdio.ts). Runs the compiled build (dist/, made by `npm run build`, which `npm test` and `npm start`
// run first) so clients that spawn hostgate get a fast cold start; falls back to running the TypeScript
// sources through tsx when there is no build yet.
import { existsSync } from "node:fs";

const compiled = new URL("../dist/hostgate.js", import.meta.url);
if (existsSync(compiled)) {
  await import(compiled.href);
} else {
  const { register } = await import("tsx/esm/api");
  register();
  await import("../src/bin/hostgate.ts");
}
