// Builds dist/: one ESM bundle of the CLI (code-split at its lazy imports) plus the audit-verify worker.
// Bundling matters for start-up: clients spawn `hostgate mcp` often, and loading ~150 small ES modules
// (ours and the SDK's) cost more than parsing one bundle. Native and wasm-carrying packages stay external.
import { build } from "esbuild";
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

rmSync(new URL("../dist", import.meta.url), { recursive: true, force: true });
await build({
  entryPoints: { hostgate: "src/bin/hostgate.ts", "audit-verify-worker": "src/adapters/audit-verify-worker.ts" },
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
  plugins: [englishOnlyZod],
  external: ["better-sqlite3", "@jellybrick/dbus-next", "web-tree-sitter", "tree-sitter-bash", "ssh2", "tsx", "yaml", "@cedar-policy/cedar-wasm", "dockerode"],
  banner: { js: "import { createRequire as __hostgateCreateRequire } from 'node:module'; const require = __hostgateCreateRequire(import.meta.url);" },
});
