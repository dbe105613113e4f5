/**
 * list_processes benchmark (issue 14: "make it ≤ 5 ms p50"). Bundles bench/support/list-processes-run.ts with
 * esbuild as scripts/build.mjs bundles dist/ (tsx keeps function names, which costs a property definition for
 * every closure created: it would measure code that is not shipped), runs it with the launcher's Node flags and
 * without NODE_EXTRA_CA_CERTS, and prints one JSON object: per argument set (default; limit 500; a name filter)
 * p50/p90 of the handler's wall and CPU time in ms (`queryAction`: read /proc, filter, sort, page, redact, cap),
 * the processes seen and CPU µs per process; then `mcp_stdio`: the same call as a client makes it, through
 * `hostgate mcp` over stdio (server CPU ms per call, client latency p50/p90; bench/support/list-processes-mcp.ts),
 * with the load average before and after (a shared machine). Target: default cpu_ms.p50 ≤ 5.
 * BENCH_N runs per set (200); BENCH_MCP_CALLS calls over stdio (300; 0 skips it).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { mcpListProcesses } from "./support/list-processes-mcp.ts";

/** The V8 flags a serving hostgate runs with: bin/hostgate.js sets the first two, src/cli/v8-tuning.ts the third. */
const V8_FLAGS = ["--liftoff-only", "--semi-space-growth-factor=1", "--optimize-for-size"];

const dir = mkdtempSync(join(tmpdir(), "hg-bench-ps-"));
try {
  const bundle = join(dir, "run.mjs");
  await build({
    entryPoints: [fileURLToPath(new URL("support/list-processes-run.ts", import.meta.url))],
    outfile: bundle,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    logLevel: "warning",
    alias: { "jsonc-parser": "jsonc-parser/lib/esm/main.js" },
    external: ["better-sqlite3", "@jellybrick/dbus-next", "web-tree-sitter", "tree-sitter-bash", "ssh2", "tsx", "yaml", "@cedar-policy/cedar-wasm", "dockerode"],
    banner: { js: "import { createRequire as __hostgateCreateRequire } from 'node:module'; const require = __hostgateCreateRequire(import.meta.url);" },
    nodePaths: [fileURLToPath(new URL("../node_modules", import.meta.url))],
  });
  const env = { ...process.env };
  delete env.NODE_EXTRA_CA_CERTS;
  const load = (): number[] => loadavg().map((x) => Math.round(x * 100) / 100);
  const before = load();
  // The V8 flags a serving hostgate runs with (bin/hostgate.js, src/cli/v8-tuning.ts).
  const r = spawnSync(process.execPath, [...V8_FLAGS, bundle], { env, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  if (r.status !== 0) throw new Error(`bench run exited ${r.status}`);
  const result = JSON.parse(r.stdout.trim().split("\n").pop()!) as Record<string, unknown>;
  const mcpCalls = Number(process.env.BENCH_MCP_CALLS ?? 300);
  const mcp = mcpCalls > 0 ? { mcp_stdio: await mcpListProcesses(mcpCalls) } : {};
  console.log(JSON.stringify({ bench: "list-processes", mode: `esbuild bundle, node ${V8_FLAGS.join(" ")}`, ...result, ...mcp, loadavg_before: before, loadavg_after: load(), target_cpu_p50_ms: 5 }));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
