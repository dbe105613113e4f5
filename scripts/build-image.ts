/**
 * Builds hostgate's container image (the MCP front only; Containerfile at the repository root, docs/install.md
 * "Container image"). The build context is hostgate as it runs installed, staged into a directory:
 * - by default this checkout's build: the files `npm pack` ships and the production node_modules
 *   (scripts/stage-package.ts, as the .deb does); run `npm run build` first (`npm run image` does not build:
 *   it runs this script only, which stops saying so when dist/ holds no build);
 * - with `--from DIR`, an installed hostgate copied as it is: the .deb's /usr/lib/hostgate, or
 *   `$(npm root -g)/hostgate`. Use it so the image runs the same build as the daemon on the host: a front
 *   refuses a daemon of another build (src/cli/front-client.ts), so an image of another build answers every
 *   call `unavailable`.
 * Then `<engine> build --network none -f Containerfile --build-arg VERSION=<version> -t <tag> [ARGS after --] <context>`;
 * engine: $CONTAINER_ENGINE, else podman, else docker. The build needs no network (nothing is downloaded).
 * Usage: `npx tsx scripts/build-image.ts [--from DIR] [--context DIR] [--tag NAME] [--no-build] [-- BUILD_ARGS…]`
 * (defaults: context .scratch/image/context, emptied first; tag hostgate:<version>). Prints one JSON line:
 * { context, tag, version, build_id, engine, built }.
 * Errors (exit 1, saying what to do): no build in dist/, a --from that is not an installed hostgate, no
 * container engine, npm or the engine failing (podman on a host with hybrid cgroups: the way out, scripts/cgroup-mode.ts).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { cgroupMode, hybridAdvice } from "./cgroup-mode.ts";
import { stagePackage } from "./stage-package.ts";

const ROOT = resolve(import.meta.dirname, "..");

function fail(message: string): never {
  process.stderr.write(`build-image: ${message}\n`);
  process.exit(1);
}

/** The value after a flag, or undefined when the flag is absent; a flag without a value fails. */
function option(argv: string[], flag: string): string | undefined {
  const i = argv.indexOf(flag);
  if (i < 0) return undefined;
  const v = argv[i + 1];
  if (v === undefined || v.startsWith("--")) fail(`${flag} needs a value`);
  return v;
}

const dashes = process.argv.indexOf("--", 2);
const argv = dashes < 0 ? process.argv.slice(2) : process.argv.slice(2, dashes);
const buildArgs = dashes < 0 ? [] : process.argv.slice(dashes + 1);
const known = new Set(["--from", "--context", "--tag", "--no-build"]);
for (const [i, a] of argv.entries()) {
  if (a.startsWith("--") && !known.has(a)) fail(`unknown option ${a}: use --from DIR, --context DIR, --tag NAME, --no-build, and put podman build options after --`);
  if (!a.startsWith("--") && !["--from", "--context", "--tag"].includes(argv[i - 1] ?? "")) fail(`unexpected argument ${a}: put podman build options after --`);
}
const from = option(argv, "--from");
const context = resolve(option(argv, "--context") ?? join(ROOT, ".scratch", "image", "context"));
const noBuild = argv.includes("--no-build");

/** An installed hostgate at `dir`: its version and build id, or a failure saying what is missing. */
function installed(dir: string): { version: string; buildId: string } {
  const pkgPath = join(dir, "package.json");
  const name = existsSync(pkgPath) ? (JSON.parse(readFileSync(pkgPath, "utf8")) as { name?: string }).name : undefined;
  if (name !== "hostgate") fail(`${dir} holds no hostgate package (no package.json naming hostgate): give the directory hostgate is installed in, e.g. /usr/lib/hostgate (the .deb) or "$(npm root -g)/hostgate"`);
  if (!existsSync(join(dir, "dist", "hostgate.js")) || !existsSync(join(dir, "dist", "prebuilt.json"))) {
    fail(from === undefined ? "no build in dist/: run `npm run build` first (`npm run image` does not build: a new build would no longer be the one your daemon runs)" : `${dir} has no built dist/ (dist/hostgate.js and dist/prebuilt.json): it is a checkout, not an installed hostgate; run \`npm run build\` there or give the installed tree`);
  }
  if (from !== undefined && !existsSync(join(dir, "node_modules"))) fail(`${dir} has no node_modules: give an installed hostgate (it carries its production dependencies)`);
  const { version } = JSON.parse(readFileSync(pkgPath, "utf8")) as { version: string };
  const { build_id: buildId } = JSON.parse(readFileSync(join(dir, "dist", "prebuilt.json"), "utf8")) as { build_id: string };
  return { version, buildId };
}

/** The container engine: $CONTAINER_ENGINE, else podman, else docker on PATH. */
function engine(): string {
  const wanted = process.env.CONTAINER_ENGINE;
  for (const e of wanted ? [wanted] : ["podman", "docker"]) {
    if (spawnSync(e, ["--version"], { stdio: "ignore" }).status === 0) return e;
  }
  return fail(wanted ? `CONTAINER_ENGINE=${wanted} does not run: install it or unset CONTAINER_ENGINE` : "no container engine: install podman (apt-get install podman) or docker, or pass --no-build and build the context yourself");
}

const source = resolve(from ?? ROOT);
const { version, buildId } = installed(source);
const tag = option(argv, "--tag") ?? `hostgate:${version}`;
const tool = noBuild ? null : engine();
rmSync(context, { recursive: true, force: true });
mkdirSync(context, { recursive: true });
try {
  if (from === undefined) stagePackage(ROOT, context);
  else cpSync(source, context, { recursive: true, verbatimSymlinks: true });
} catch (e) {
  fail((e as Error).message);
}
if (tool !== null) {
  try {
    execFileSync(tool, ["build", "--network", "none", "-f", join(ROOT, "Containerfile"), "--build-arg", `VERSION=${version}`, "-t", tag, ...buildArgs, context], { stdio: ["ignore", 2, 2] });
  } catch {
    const fsType = spawnSync("stat", ["-fc", "%T", "/sys/fs/cgroup"], { encoding: "utf8" }).stdout.trim();
    const hybrid = tool.endsWith("podman") && cgroupMode(fsType, existsSync("/sys/fs/cgroup/unified")) === "hybrid";
    fail(`${tool} build failed (its output is above)${hybrid ? `; if it says "cgroups in hybrid mode not supported": ${hybridAdvice(`npm run image -- ${process.argv.slice(2).join(" ")}`.trim())}` : ""}`);
  }
}
process.stdout.write(`${JSON.stringify({ context, tag, version, build_id: buildId, engine: tool, built: tool !== null })}\n`);
