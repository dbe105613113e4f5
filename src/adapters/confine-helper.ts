import { execFileSync } from "node:child_process";
import { existsSync, lstatSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { untrustedWriter } from "../core/service/tree-trust.ts";

/**
 * The hostgate-confine helper (native/confine-helper.c): the sandbox of an unapproved command on the daemon's
 * own host in one exec (core/sandbox/confine.ts, mechanism `hostgate-confine`). It is never downloaded or
 * shipped prebuilt: `npm run build` compiles it from the checkout's source into dist/ when a C compiler is
 * there (scripts/build-helper.ts), tests and benchmarks compile their own copy. Without it the daemon uses
 * bubblewrap as before.
 */

/** The package's root: the nearest directory above this module holding native/confine-helper.c, or null. */
function packageRoot(): string | null {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++) {
    if (existsSync(join(dir, "native", "confine-helper.c"))) return dir;
    dir = dirname(dir);
  }
  return null;
}

/** Absolute path of the helper's C source, or null when the package has none (a trimmed install). */
export function confineHelperSource(): string | null {
  const root = packageRoot();
  return root === null ? null : join(root, "native", "confine-helper.c");
}

/** Where the build puts the helper (`dist/hostgate-confine` in the package), or null without a package root. */
export function builtConfineHelperPath(): string | null {
  const root = packageRoot();
  return root === null ? null : join(root, "dist", "hostgate-confine");
}

/**
 * Compiles the helper from source to `out` (absolute), trying in turn: `musl-gcc -O2 -static` (musl's static
 * start-up skips glibc's CPU-feature probing and relocations: ≈ 2 ms less CPU per exec and a smaller process to
 * clone on the test VM, bench/sandbox-cost.ts; Debian package musl-tools), `cc -O2 -static` (a static binary execs
 * in a third of the time of a dynamic one here), `cc -O2` (no static libc installed). A compiler that is not
 * installed is skipped. Returns the path, or throws Error saying what is missing (no source, no compiler, the
 * last compiler's first error line). `opts.cc`: one compiler to use instead (`-static`, else dynamic).
 */
export function buildConfineHelper(out: string, opts: { cc?: string } = {}): string {
  const src = confineHelperSource();
  if (src === null) throw new Error("native/confine-helper.c is not in this package: the hostgate-confine helper cannot be built (bubblewrap is used)");
  const base = ["-O2", "-Wall", "-o", out, src];
  const attempts: [string, string[]][] = opts.cc !== undefined
    ? [[opts.cc, ["-static", ...base]], [opts.cc, base]]
    : [["musl-gcc", ["-static", ...base]], ["cc", ["-static", ...base]], ["cc", base]];
  let last = "";
  let found = false;
  for (const [cc, args] of attempts) {
    try {
      execFileSync(cc, args, { stdio: ["ignore", "ignore", "pipe"] });
      return out;
    } catch (e) {
      const err = e as { code?: string; stderr?: Buffer };
      if (err.code === "ENOENT") continue;
      found = true;
      last = err.stderr?.toString("utf8").split("\n").find((l) => /error/i.test(l)) ?? String(e);
    }
  }
  if (!found) throw new Error(`no C compiler (${opts.cc ?? "cc"}) on PATH: the hostgate-confine helper is not built (bubblewrap is used); install gcc (and musl-tools) and rebuild to use it`);
  throw new Error(`cc could not build the hostgate-confine helper: ${last}`);
}

/**
 * Why root must not run the helper at `path`, or null when it may: the file and every directory above it must
 * be owned by root and writable by no one else, sticky directories included (core/service/tree-trust.ts
 * `untrustedWriter` with `sticky: "refuse"`; the daemon runs it as root for every unapproved command: DESIGN.md,
 * "Root never follows a path a user or model can shape"), and none of them a symbolic link. `path` must be
 * absolute. Checked once when the daemon composes its hosts (daemon/hosts.ts), not per command.
 */
export function confineHelperUnsafeReason(path: string): string | null {
  if (!path.startsWith("/")) return `${path} is not an absolute path`;
  let p = resolve(path);
  let st;
  try {
    st = lstatSync(p);
  } catch {
    return `${p} does not exist`;
  }
  if (!st.isFile()) return `${p} is not a regular file`;
  if ((st.mode & 0o111) === 0) return `${p} is not executable`;
  for (;;) {
    const s = lstatSync(p);
    if (s.isSymbolicLink()) return `${p} is a symbolic link`;
    const why = untrustedWriter({ path: p, uid: s.uid, gid: s.gid, mode: s.mode & 0o7777, dir: s.isDirectory() }, { sticky: "refuse" });
    if (why !== null) return `${p} is ${why}${s.uid !== 0 ? ", not root" : ` (mode ${(s.mode & 0o7777).toString(8)})`}`;
    if (p === "/") return null;
    p = dirname(p);
  }
}

/**
 * The helper the daemon may use for its own host: the build's dist/hostgate-confine when it exists and passes
 * `confineHelperUnsafeReason`, as `{ path }`; else `{ reason }` (for doctor). Only meaningful for a root daemon.
 */
export function localConfineHelper(): { path: string } | { reason: string } {
  const path = builtConfineHelperPath();
  if (path === null || !existsSync(path)) return { reason: "not built (no C compiler when hostgate was built)" };
  const why = confineHelperUnsafeReason(path);
  return why === null ? { path } : { reason: `not used: ${why}` };
}
