// Builds dist/: one ESM bundle of the CLI (code-split at its lazy imports) plus the audit-verify worker, then
// dist/prebuilt.json (scripts/prebuild.ts: descriptors and JSON Schemas no process should compute at start).
// Bundling matters for start-up: clients spawn `hostgate mcp` often, and loading ~150 small ES modules
// (ours and the SDK's) cost more than parsing one bundle. Native and wasm-carrying packages stay external.
import { build } from "esbuild";
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * zod re-exports ~50 locales (≈ 366 KB, a fifth of the JavaScript loaded at start) and hostgate uses English
 * only: its locales index becomes one that exports `en` alone. zod's own default (English) is unaffected.
 */
const englishOnlyZod = {
  name: "zod-english-only",
  setup(b) {
    b.onResolve({ filter: /[\\/]locales[\\/]index\.js$/ }, (args) => {
      if (!args.importer.includes(`${"node_modules"}/zod/`)) return undefined;
      return { path: fileURLToPath(new URL("zod-locales-en.ts", import.meta.url)) };
    });
  },
};

/** The SDK's Node shim without Ajv: see sdk-shims-node.ts. */
const sdkShimsWithoutAjv = {
  name: "sdk-shims-without-ajv",
  setup(b) {
    b.onResolve({ filter: /^@modelcontextprotocol\/server\/_shims$/ }, () => ({ path: fileURLToPath(new URL("sdk-shims-node.ts", import.meta.url)) }));
  },
};

rmSync(new URL("../dist", import.meta.url), { recursive: true, force: true });
/** Ties dist/prebuilt.json to this bundle (src/ipc/prebuilt.ts ignores a table from another build). */
const buildId = randomUUID();
await build({
  entryPoints: { hostgate: "src/bin/hostgate.ts", "audit-verify-worker": "src/adapters/audit-verify-worker.ts", "skills-unpack-worker": "src/adapters/skills-unpack-worker.ts" },
  outdir: "dist",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  sourcemap: true,
  logLevel: "warning",
  // jsonc-parser's "main" is a UMD build whose dynamic requires a bundle cannot follow: use its ES modules.
  alias: { "jsonc-parser": "jsonc-parser/lib/esm/main.js" },
  plugins: [englishOnlyZod, sdkShimsWithoutAjv],
  define: { bundleBuildId: JSON.stringify(buildId) },
  // @opentelemetry/*: loaded from node_modules only when tracing is on (issue 25), so a process with it off
  // provably never loads them (test/e2e/tracing.test.ts watches the module loader).
  external: ["better-sqlite3", "@jellybrick/dbus-next", "web-tree-sitter", "tree-sitter-bash", "ssh2", "tsx", "yaml", "@cedar-policy/cedar-wasm", "dockerode", "@opentelemetry/*"],
  banner: { js: "import { createRequire as __hostgateCreateRequire } from 'node:module'; const require = __hostgateCreateRequire(import.meta.url);" },
});

// tsx runs the sources (a dev dependency: builds happen in a checkout; the published package ships dist/).
execFileSync(process.execPath, ["--import", "tsx", fileURLToPath(new URL("prebuild.ts", import.meta.url)), buildId], { stdio: "inherit" });
// The sandbox helper of the daemon's own host, from source (optional: needs cc; scripts/build-helper.ts).
execFileSync(process.execPath, ["--import", "tsx", fileURLToPath(new URL("build-helper.ts", import.meta.url))], { stdio: "inherit" });
