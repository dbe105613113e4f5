import { setFlagsFromString } from "node:v8";

let settled = false;

/**
 * The V8 setting a long-running hostgate (`mcp`, `serve`, `daemon`) takes once it serves, not before: with
 * `--optimize-for-size` the heap grows more slowly and is collected sooner, which kept resident memory after
 * 2,000 mixed calls at 86–89 MB against 91–107 MB without it (issue 14, target ≤ 90 MB; bench/front-cost.ts),
 * for ≈ 6–12 % more CPU per call. Set after start-up because during it the same flag cost ≈ 20 % more CPU
 * to the first tools/list answer. The launcher (bin/hostgate.js) sets the flags that must precede any
 * allocation or WebAssembly. Idempotent.
 */
export function settleV8ForLongRunning(): void {
  if (settled) return;
  settled = true;
  setFlagsFromString("--optimize-for-size");
}
