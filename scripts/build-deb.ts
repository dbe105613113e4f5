/**
 * Builds hostgate's Debian package with dpkg-deb (docs/install.md "Debian package"): the npm package's files (what
 * `npm pack` would ship) and its production node_modules under /usr/lib/hostgate, /usr/bin/hostgate, the man
 * pages, bash and zsh completions, the service unit in /lib/systemd/system (not a conffile; not enabled or
 * started), a sysusers.d entry and a postinst that creates the `hostgate` group. Texts: scripts/deb-files.ts.
 * The package is architecture-specific (better-sqlite3, koffi and the confine helper are native) and bound to the
 * Node.js major version the checkout's node_modules were built for.
 * Usage: `npm run deb` (builds first) or `npx tsx scripts/build-deb.ts [--out DIR] [--fast-compression]` after
 * `npm run build`; default DIR: .scratch/deb. The payload is compressed with xz at dpkg-deb's default level (≈14 MB,
 * ≈60 s of CPU here); --fast-compression uses gzip -1 instead (≈35 MB, ≈1.5 s of CPU; same files, for tests:
 * test/packaging/deb.test.ts). Prints one JSON line: { deb, bytes, installed_kib, files }.
 * Errors (exit 1, with what to do): an unknown option, no build in dist/, no dpkg-deb, npm pack or npm ls failing.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, closeSync, existsSync, lstatSync, mkdirSync, mkdtempSync, openSync, readFileSync, readSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { gzipSync } from "node:zlib";
import { stagePackage } from "./stage-package.ts";
import { DEB_PATHS, LINTIAN_OVERRIDES, POSTINST, POSTRM, PRERM, SYSUSERS, changelog, control, copyright, packagedUnit } from "./deb-files.ts";

const ROOT = resolve(import.meta.dirname, "..");
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string; description: string };
const HOMEPAGE = "https://github.com/hostgate/hostgate";

function fail(message: string): never {
  process.stderr.write(`build-deb: ${message}\n`);
  process.exit(1);
}

function run(cmd: string, args: string[]): string {
  try {
    return execFileSync(cmd, args, { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 64 << 20 });
  } catch (e) {
    const err = e as { stderr?: string; message: string };
    return fail(`${cmd} ${args.join(" ")} failed: ${err.stderr?.trim() || err.message}`);
  }
}

const USAGE = "use: build-deb.ts [--out DIR] [--fast-compression]";
let outDir = join(ROOT, ".scratch", "deb");
let fastCompression = false;
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i]!;
  if (a === "--fast-compression") fastCompression = true;
  else if (a === "--out") {
    const dir = process.argv[++i];
    if (!dir || dir.startsWith("--")) fail(`--out needs a directory (${USAGE})`);
    outDir = resolve(dir);
  } else fail(`unknown option ${a}: ${USAGE}`);
}
if (!existsSync(join(ROOT, "dist", "hostgate.js"))) fail("no build in dist/: run `npm run build` first (or `npm run deb`, which builds)");
try {
  execFileSync("dpkg-deb", ["--version"], { stdio: "ignore" });
} catch {
  fail("dpkg-deb not found: install dpkg (Debian/Ubuntu: apt-get install dpkg)");
}

function head(path: string, n: number): Buffer {
  const fd = openSync(path, "r");
  try {
    const b = Buffer.alloc(n);
    return b.subarray(0, readSync(fd, b, 0, n, 0));
  } finally {
    closeSync(fd);
  }
}
const isElf = (p: string) => head(p, 4).equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46]));
const isProgram = (p: string) => (isElf(p) && !p.endsWith(".node")) || head(p, 2).toString() === "#!";
/** Strips debug symbols from an ELF file (binutils' strip; left as is when strip is missing). */
function strip(p: string): void {
  try {
    execFileSync("strip", ["--strip-unneeded", "--remove-section=.comment", "--remove-section=.note", p], { stdio: "ignore" });
  } catch {
    /* no strip here: lintian will say unstripped-binary-or-object */
  }
}

const stage = mkdtempSync(join(tmpdir(), "hostgate-deb-"));
const at = (p: string) => join(stage, p);
const write = (p: string, text: string | Buffer, mode = 0o644) => {
  mkdirSync(dirname(at(p)), { recursive: true });
  writeFileSync(at(p), text, { mode });
};
try {
  // 1–2. The npm package's files, as `npm pack` selects them, and the production dependencies.
  try {
    stagePackage(ROOT, at(DEB_PATHS.lib));
  } catch (e) {
    fail((e as Error).message);
  }
  // 3. The command, man pages, completions, unit, group, docs.
  mkdirSync(dirname(at(DEB_PATHS.bin)), { recursive: true });
  symlinkSync(relative(dirname(DEB_PATHS.bin), join(DEB_PATHS.lib, "bin", "hostgate.js")), at(DEB_PATHS.bin));
  for (const page of readdirSync(join(ROOT, "man")).filter((f) => f.endsWith(".1"))) write(join(DEB_PATHS.man1, `${page}.gz`), gzipSync(readFileSync(join(ROOT, "man", page)), { level: 9 }));
  write(DEB_PATHS.bashCompletion, run(process.execPath, [join(ROOT, "bin", "hostgate.js"), "completion", "bash"]));
  write(DEB_PATHS.zshCompletion, run(process.execPath, [join(ROOT, "bin", "hostgate.js"), "completion", "zsh"]));
  write(join(DEB_PATHS.unitDir, "hostgate.service"), packagedUnit(pkg.version));
  write(DEB_PATHS.sysusers, SYSUSERS);
  write(DEB_PATHS.lintianOverrides, LINTIAN_OVERRIDES);
  const when = new Date(Number(process.env.SOURCE_DATE_EPOCH ?? Math.floor(Date.now() / 1000)) * 1000);
  write(join(DEB_PATHS.doc, "copyright"), copyright(HOMEPAGE, when.getUTCFullYear()));
  write(join(DEB_PATHS.doc, "changelog.gz"), gzipSync(changelog(pkg.version, when.toUTCString().replace("GMT", "+0000")), { level: 9 }));
  // 4. Modes: directories 0755; files 0755 when they are programs (ELF executables, #! scripts), else 0644
  // (native modules are shared libraries: 0644, stripped). Nothing group- or world-writable.
  const files: string[] = [];
  const walk = (d: string): void => {
    chmodSync(d, 0o755);
    for (const e of readdirSync(d)) {
      const p = join(d, e);
      const st = lstatSync(p);
      if (st.isSymbolicLink()) continue;
      if (st.isDirectory()) walk(p);
      else { chmodSync(p, isProgram(p) ? 0o755 : 0o644); if (isElf(p)) strip(p); files.push(p); }
    }
  };
  walk(stage);
  const installedKiB = Math.ceil(files.reduce((n, f) => n + statSync(f).size, 0) / 1024);
  // 5. DEBIAN/: control, md5sums, maintainer scripts.
  const arch = run("dpkg", ["--print-architecture"]).trim();
  const nodeMajor = Number(process.versions.node.split(".")[0]);
  write("DEBIAN/control", control({ version: pkg.version, arch, nodeMajor, installedKiB, description: pkg.description, homepage: HOMEPAGE }));
  write("DEBIAN/md5sums", files.map((f) => `${createHash("md5").update(readFileSync(f)).digest("hex")}  ${relative(stage, f)}`).sort().join("\n") + "\n");
  write("DEBIAN/postinst", POSTINST, 0o755);
  write("DEBIAN/prerm", PRERM, 0o755);
  write("DEBIAN/postrm", POSTRM, 0o755);
  mkdirSync(outDir, { recursive: true });
  const deb = join(outDir, `hostgate_${pkg.version}_${arch}.deb`);
  run("dpkg-deb", ["--root-owner-group", ...(fastCompression ? ["-Zgzip", "-z1"] : ["-Zxz"]), "--build", stage, deb]);
  process.stdout.write(`${JSON.stringify({ deb, bytes: statSync(deb).size, installed_kib: installedKiB, files: files.length })}\n`);
} finally {
  rmSync(stage, { recursive: true, force: true });
}
