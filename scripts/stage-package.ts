/**
 * Copies hostgate as it runs installed into one directory: the files `npm pack` ships (package.json `files`:
 * bin/, dist/, man/…) and the production node_modules of the checkout (the top-level module folders
 * `npm ls --omit=dev` names; nested ones come along), without other platforms' prebuilt binaries or build-only
 * parts. Shared by the Debian package (scripts/build-deb.ts: /usr/lib/hostgate) and the container image
 * (scripts/build-image.ts: its build context). The checkout must be built (`npm run build`): dist/ is copied
 * as it is, so what is staged is that build (the build id a daemon and a front compare, src/ipc/prebuilt.ts).
 * Throws, saying what failed, when `npm pack --dry-run` or `npm ls` fails.
 */
import { execFileSync } from "node:child_process";
import { cpSync } from "node:fs";
import { basename, join, relative } from "node:path";

/** Runs a command in `cwd`; its stdout, or an Error naming the command and its stderr. */
function run(cwd: string, cmd: string, args: string[]): string {
  try {
    return execFileSync(cmd, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 64 << 20 });
  } catch (e) {
    const err = e as { stderr?: string; message: string };
    throw new Error(`${cmd} ${args.join(" ")} failed: ${err.stderr?.trim() || err.message}`);
  }
}

/** Module files left out: npm/eslint dot-files, other platforms' prebuilt binaries, build-only parts. */
export function keepModuleFile(src: string): boolean {
  const name = basename(src);
  if (src.endsWith("/node_modules/.bin") || name === ".npmignore" || name.startsWith(".eslintrc") || name === "test_extension.node") return false;
  const prebuild = /\/prebuilds\/([^/]+)$/.exec(src);
  if (prebuild && prebuild[1] !== `${process.platform}-${process.arch}`) return false;
  return !/\/koffi-linux-[^/]+\/musl_[^/]+$/.test(src) && !/\/better-sqlite3\/(deps|src)$/.test(src);
}

/**
 * Stages the checkout at `root` into `dest` (created as needed): the packed files at their relative paths and
 * `dest/node_modules`. Returns the packed files' relative paths.
 */
export function stagePackage(root: string, dest: string): string[] {
  const packed = (JSON.parse(run(root, "npm", ["pack", "--dry-run", "--json", "--ignore-scripts"])) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path);
  for (const f of packed) cpSync(join(root, f), join(dest, f));
  const modules = join(root, "node_modules");
  const prod = run(root, "npm", ["ls", "--omit=dev", "--parseable", "--all"]).split("\n").filter((p) => p.startsWith(`${modules}/`))
    .filter((p) => { const r = relative(modules, p).split("/"); return r.length === 1 || (r.length === 2 && r[0]!.startsWith("@")); });
  for (const m of new Set(prod)) cpSync(m, join(dest, "node_modules", relative(modules, m)), { recursive: true, filter: keepModuleFile });
  return packed;
}
