import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, lstatSync, readFileSync } from "node:fs";
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

/** ELF machine numbers (elf.h EM_*) of the architectures the seccomp filter knows, by `uname -m` name. */
const ELF_MACHINES: Record<number, string> = { 62: "x86_64", 183: "aarch64" };

/**
 * What an executable's ELF header says (64-bit little-endian only): its machine as `uname -m` names it (null:
 * another machine) and whether it is static (no PT_INTERP program header: no dynamic loader, so it runs on a
 * host whatever libc that host has). Null when `bytes` is not such an ELF file. Source: elf(5).
 */
export function elfFacts(bytes: Uint8Array): { arch: string | null; static: boolean } | null {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (b.length < 64 || b.readUInt32BE(0) !== 0x7f454c46 || b[4] !== 2 || b[5] !== 1) return null;
  const phoff = Number(b.readBigUInt64LE(32));
  const phentsize = b.readUInt16LE(54);
  const phnum = b.readUInt16LE(56);
  if (phentsize < 4 || phoff + phentsize * phnum > b.length) return null;
  let interp = false;
  for (let i = 0; i < phnum; i++) if (b.readUInt32LE(phoff + i * phentsize) === 3) interp = true;
  return { arch: ELF_MACHINES[b.readUInt16LE(18)] ?? null, static: !interp };
}

/** The helper as SSH hosts get it (core/sandbox/helper-cache.ts): its bytes, their SHA-256 in hex, its architecture. */
export interface UploadableHelper {
  bytes: Uint8Array;
  sha256: string;
  arch: string;
}

/**
 * The helper the daemon may upload to SSH hosts whose `uname -m` is its architecture: the build's
 * dist/hostgate-confine (or `path`), when it passes `confineHelperUnsafeReason` (what the daemon reads and
 * sends must be what root alone controls) and is a static 64-bit ELF of a known machine; else `{ reason }` (for
 * doctor: SSH hosts then use bubblewrap). Read once at start.
 */
export function uploadableConfineHelper(path: string | null = builtConfineHelperPath()): UploadableHelper | { reason: string } {
  if (path === null || !existsSync(path)) return { reason: "not built (no C compiler when hostgate was built)" };
  const unsafe = confineHelperUnsafeReason(path);
  if (unsafe !== null) return { reason: `not used: ${unsafe}` };
  const bytes = readFileSync(path);
  const elf = elfFacts(bytes);
  if (elf === null || elf.arch === null) return { reason: `${path} is not a 64-bit little-endian ELF executable for x86_64 or aarch64` };
  if (!elf.static) return { reason: `${path} is linked dynamically (no static libc when it was built: install musl-tools and rebuild), so it is not sent to other hosts` };
  return { bytes, sha256: createHash("sha256").update(bytes).digest("hex"), arch: elf.arch };
}
