/**
 * Writes the manual pages (src/cli/man-pages.ts) into man/: hostgate.1 and one page per subcommand, from the
 * commander definitions, and lists them in package.json's `man` field (what `npm install -g` links into the
 * man path). Stale pages (of a removed subcommand) are deleted. Usage: `npx tsx scripts/gen-man.ts`
 * (writes) or `--check` (exit 1 and the names when a page would change; test/packaging/man-pages.test.ts runs it).
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildProgram } from "../src/cli/program.ts";
import { manPages } from "../src/cli/man-pages.ts";
import { VERSION } from "../src/version.ts";

const dir = join(import.meta.dirname, "..", "man");
const check = process.argv.includes("--check");
const pages = manPages(await buildProgram(undefined, { whole: true }), VERSION);
const wanted = new Set(pages.map((p) => p.file));
const stale: string[] = [];
if (!check) mkdirSync(dir, { recursive: true });
for (const p of pages) {
  const path = join(dir, p.file);
  if (existsSync(path) && readFileSync(path, "utf8") === p.text) continue;
  stale.push(p.file);
  if (!check) writeFileSync(path, p.text);
}
for (const f of existsSync(dir) ? readdirSync(dir) : []) {
  if (!f.endsWith(".1") || wanted.has(f)) continue;
  stale.push(`${f} (no such command)`);
  if (!check) rmSync(join(dir, f));
}
// package.json's `man` lists every page, sorted (rewritten with its own 2-space formatting).
const pkgPath = join(import.meta.dirname, "..", "package.json");
const pkgText = readFileSync(pkgPath, "utf8");
const pkg = JSON.parse(pkgText) as { man?: string[] };
const man = [...wanted].sort().map((f) => `./man/${f}`);
if (JSON.stringify(pkg.man) !== JSON.stringify(man)) {
  stale.push("package.json man field");
  if (!check) writeFileSync(pkgPath, `${JSON.stringify({ ...pkg, man }, null, 2)}\n`);
}
if (check && stale.length > 0) {
  process.stderr.write(`man/ is stale: ${stale.join(", ")}; run npx tsx scripts/gen-man.ts\n`);
  process.exit(1);
}
process.stdout.write(check ? `man/: ${pages.length} pages up to date\n` : `man/: ${pages.length} pages, ${stale.length} written or removed\n`);
