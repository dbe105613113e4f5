import type { Cmd } from "./command.ts";
import { emit, type Ctx, type Scope } from "./context.ts";
import { sourceKinds } from "./code.ts";
import { fileWrites } from "./effects.ts";
import { normalisePath } from "./paths.ts";
import { programOf } from "./programs/index.ts";
import type { SyntaxNode as Node } from "./syntax.ts";
import { DOWNLOADERS } from "./table.ts";
import { peelWrappers } from "./wrappers.ts";
import { literalArg, type Arg } from "./words.ts";

/**
 * Download, then run: `curl -o /tmp/a URL; bash /tmp/a` is `curl URL | sh` in two steps. Within one line the
 * engine remembers every file a downloader writes (its output options and redirections, `curl -O`/`wget`'s
 * remote name, a file written by a later pipeline stage, a copy of such a file) and every file the line runs
 * (as a program, a script for a shell or interpreter, `source`, a shell's standard input, a package to install).
 * When the analysis ends, a run of a downloaded file is `download_to_interpreter` (critical). The match ignores
 * order, since loops and functions can run a file before the text that fetches it.
 */

/** One file the line runs: its key (see fileKey), or a bare name looked up in PATH, and where to report it. */
export interface FileRun {
  /** The word that names the file, and where the line was when it ran (the key is computed only if needed). */
  arg: Arg;
  cwd: string | undefined;
  relCwd: string | undefined;
  bare: boolean;
  display: string;
  how: string;
  scope: Scope;
  node: Node;
  /** Commands inspected before this run (a bare name only runs a download fetched before it). */
  seq: number;
}

/** A file a downloader wrote: who wrote it (a clause for the reason) and how many commands came before. */
export interface Fetched {
  what: string;
  seq: number;
}

/** Directories a bare command name is found in on common PATHs (a download into one of them shadows the program). */
const PATH_DIRS = ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin", "~/bin", "~/.local/bin", "/snap/bin"];

/**
 * How a file is named across the line: its normalised path, or for a path built at run time its display form. A
 * relative path after `cd DIR` to a relative DIR (the absolute directory unknown) is keyed below DIR.
 */
export function fileKey(a: Arg, cwd: string | undefined, relCwd?: string): string {
  if (a.dynamic) return `?${a.display}`;
  if (cwd === undefined && relCwd && !/^[/~]/.test(a.text)) return normalisePath(`${relCwd}/${a.text}`);
  return normalisePath(a.text, cwd);
}

/** The key for everything below directory `dir` (`/opt/x/**`; the root's is `/**`). */
const treeKey = (dir: string): string => `${dir === "/" ? "" : dir}/**`;

function mark(ctx: Ctx, key: string, what: string): void {
  ctx.fetched.set(key, { what, seq: ctx.cmds });
}

/**
 * Records that the line runs file `a` (`how` says in what way: "runs", "sources", "installs"…). `lookup` says how
 * a name without a slash is found: as a file in the working directory, in PATH (a command name), or both (`source`).
 */
export function noteRun(ctx: Ctx, scope: Scope, node: Node, a: Arg, how: string, lookup: "file" | "path" | "both" = "file"): void {
  if (a.text === "" && !a.dynamic) return;
  const bare = !a.dynamic && !a.text.includes("/");
  // Called for every command: plain object literals of one shape, no copies.
  const seq = ctx.cmds;
  const { cwd, relCwd } = scope;
  if (bare && lookup !== "file") ctx.runs.push({ arg: a, cwd, relCwd, bare: true, display: a.display, how, scope, node, seq });
  if (!bare || lookup !== "path") ctx.runs.push({ arg: a, cwd, relCwd, bare: false, display: a.display, how, scope, node, seq });
  // `x=./f; $x`: a word with run-time parts whose value is known is also the file its text names.
  if (a.dynamic && a.text !== "") ctx.runs.push({ arg: { ...a, dynamic: false }, cwd, relCwd, bare: false, display: a.display, how, scope, node, seq });
}

/** Programs that copy or unpack a file's content into the files they write (a copy of a download is a download). */
const COPIERS = new Set(["tar", "bsdtar", "unzip", "7z", "7za", "cp", "mv", "install", "ln", "cat", "dd", "rsync", "tee", "gunzip", "gzip", "zcat", "xz", "unxz", "bunzip2", "base64", "sponge"]);

/** The URL operands of a downloader: their last path segment is the file `curl -O` and `wget` write. */
function remoteNames(cmd: Cmd): string[] {
  const out: string[] = [];
  for (const a of cmd.args) {
    const m = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*(\/[^?#]*)?/i.exec(a.text);
    if (!m) continue;
    const last = (m[1] ?? "").split("/").pop() ?? "";
    out.push(last === "" ? "index.html" : last);
  }
  return out;
}

/** Files curl and wget name after the URL: `curl -O`/`--remote-name`, and wget without `-O` (into `-P DIR`). */
function namedAfterUrl(cmd: Cmd): string[] {
  const p = programOf(cmd);
  const given = (short: string, long: RegExp): boolean =>
    (p?.flags.has(short) ?? false) || cmd.args.some((a) => long.test(a.text) || (new RegExp(`^-[a-zA-Z0-9#]*${short.slice(1)}[a-zA-Z0-9#]*$`).test(a.text) && !a.text.startsWith("--")));
  if (cmd.name === "curl") {
    if (!given("-O", /^--remote-name(-all)?$/)) return [];
    const dir = p?.flags.get("--output-dir")?.[0]?.text;
    return remoteNames(cmd).map((n) => (dir ? `${dir}/${n}` : n));
  }
  if (cmd.name === "wget") {
    if (p?.flags.has("--output-document")) return [];
    const dir = p?.flags.get("--directory-prefix")?.[0]?.text;
    return remoteNames(cmd).map((n) => (dir ? `${dir}/${n}` : n));
  }
  return [];
}

/**
 * Where a command that copies a remote tree puts it: `git clone URL [DIR]` (DIR defaults to the URL's last segment
 * without `.git`), `scp|rsync HOST:PATH DEST`. Null when it does not fetch a tree.
 */
function remoteTree(cmd: Cmd): string | null {
  const ops = cmd.args.filter((a) => !a.text.startsWith("-")).map((a) => a.text);
  if (cmd.name === "git") {
    const i = ops.indexOf("clone");
    if (i < 0 || !ops[i + 1]) return null;
    return ops[i + 2] ?? (ops[i + 1]!.replace(/\/+$/, "").split(/[/:]/).pop() ?? "").replace(/\.git$/, "");
  }
  if ((cmd.name === "scp" || cmd.name === "rsync") && ops.length >= 2) {
    const remote = (t: string): boolean => /^rsync:\/\//.test(t) || /^[^/:]+:/.test(t);
    return ops.slice(0, -1).some(remote) && !remote(ops[ops.length - 1]!) ? ops[ops.length - 1]! : null;
  }
  return null;
}

/** Output files of downloaders that have no option table: aria2c/xh/http/fetch `-o|--out|--output FILE` (in `-d DIR`), lwp-download's second operand. */
function otherDownloaderOutputs(cmd: Cmd): Arg[] {
  if (!["aria2c", "xh", "http", "https", "fetch", "lwp-download"].includes(cmd.name)) return [];
  if (cmd.name === "lwp-download") return cmd.args.filter((a) => !a.text.startsWith("-")).slice(1, 2);
  const t = cmd.args;
  const value = (re: RegExp): Arg | undefined => {
    for (let i = 0; i < t.length; i++) {
      const m = re.exec(t[i]!.text);
      const v = m?.[1] || m?.[2];
      if (m) return v ? { ...t[i]!, text: v, display: v } : t[i + 1];
    }
    return undefined;
  };
  const out = value(/^(?:--out|--output)(?:=(.+))?$|^-o(.*)$/);
  const dir = cmd.name === "aria2c" ? value(/^--dir(?:=(.+))?$|^-d(.*)$/) : undefined;
  if (!out) return [];
  return [dir && !/^\//.test(out.text) ? { ...out, text: `${dir.text}/${out.text}`, display: `${dir.display}/${out.display}` } : out];
}

/** True when what `cmd` writes comes from the network: it is a downloader, or one feeds it (pipe, substitution). */
function fromNetwork(cmd: Cmd, ctx: Ctx, relCwd: string | undefined): boolean {
  if (DOWNLOADERS.has(cmd.name)) return true;
  for (let c: Cmd | null = cmd, n = 0; c && n < 64; n++) {
    if (DOWNLOADERS.has(c.name) || DOWNLOADERS.has(peelWrappers(c).name)) return true;
    if (sourceKinds([...c.args, c.argv0].flatMap((a) => a.subs)).download) return true;
    if (c.stdin.kind === "file" && ctx.fetched.has(fileKey(c.stdin.arg, c.cwd, relCwd))) return true;
    if (c.stdin.kind === "pipe" && !c.stdin.from && c.stdin.fromNode && sourceKinds([c.stdin.fromNode]).download) return true;
    c = c.stdin.kind === "pipe" ? c.stdin.from : null;
  }
  return false;
}

/** Remembers the files `cmd` fills with downloaded content (called for every simple command, in order). */
export function noteFetched(cmd: Cmd, ctx: Ctx, scope: Scope): void {
  // Runs for every command: decide cheaply that most of them fetch nothing.
  const n = cmd.name;
  const tree = n === "git" || n === "scp" || n === "rsync" ? remoteTree(cmd) : null;
  const by = DOWNLOADERS.has(n) ? n : null;
  const fed = cmd.stdin.kind !== "none" || cmd.args.some((a) => a.subs.length > 0);
  const network = by !== null || (fed && fromNetwork(cmd, ctx, scope.relCwd));
  const maybeCopy = !network && ctx.fetched.size > 0 && COPIERS.has(n);
  if (!tree && !network && !maybeCopy) return;
  const key = (a: Arg): string => fileKey(a, cmd.cwd, scope.relCwd);
  const path = (t: string): string => key(literalArg(t));
  if (tree) {
    const dest = path(tree);
    mark(ctx, dest, `${n} fetched`);
    mark(ctx, treeKey(dest), `${n} fetched from another host`);
  }
  const copied = maybeCopy && cmd.args.some((a) => !a.text.startsWith("-") && ctx.fetched.has(key(a)));
  if (!network && !copied) return;
  const what = by ? `${by} downloaded` : copied ? `${cmd.name} copied from a download` : `${cmd.name} wrote from a download`;
  for (const w of [...fileWrites(cmd), ...otherDownloaderOutputs(cmd)]) {
    mark(ctx, key(w), what);
    if (w.dynamic && w.text !== "") mark(ctx, key({ ...w, dynamic: false }), what);
  }
  for (const n of namedAfterUrl(cmd)) mark(ctx, path(n), what);
  // An archive from the network unpacks files nobody has seen: everything below where it unpacks counts.
  const into = extractsInto(cmd);
  if (into !== null) mark(ctx, treeKey(path(into)), what.replace(/ (downloaded|copied from a download|wrote from a download)$/, " unpacked from a download"));
  // cp/mv/install into a directory: the file keeps its name there.
  if (copied && (cmd.name === "cp" || cmd.name === "mv" || cmd.name === "install")) {
    const ops = cmd.args.filter((a) => !a.text.startsWith("-"));
    const dest = ops[ops.length - 1];
    for (const src of ops.slice(0, -1)) {
      if (dest && !dest.dynamic && ctx.fetched.has(key(src))) mark(ctx, path(`${dest.text}/${src.text.split("/").pop()}`), what);
    }
  }
}

/** Where an extracting tar/unzip/7z unpacks (`-C`, `--directory`, `-d`, `-o`; `.` by default), or null when it does not extract. */
function extractsInto(cmd: Cmd): string | null {
  const t = cmd.args.map((a) => a.text);
  const after = (re: RegExp): string | undefined => {
    for (let i = 0; i < t.length; i++) {
      const m = re.exec(t[i]!);
      if (m) return m[1] || t[i + 1];
    }
    return undefined;
  };
  if (cmd.name === "tar" || cmd.name === "bsdtar") {
    if (!(/^-?[a-zA-Z]*x/.test(t[0] ?? "") || t.some((x) => /^(-[a-zA-Z]*x[a-zA-Z]*|--extract|--get)$/.test(x)))) return null;
    return after(/^(?:-C|--directory=?|--dir=?)(.*)$/) ?? ".";
  }
  if (cmd.name === "unzip") return after(/^-d(.*)$/) ?? ".";
  if (cmd.name === "7z" || cmd.name === "7za") return t[0] === "x" || t[0] === "e" ? after(/^-o(.+)$/) ?? "." : null;
  return null;
}

/** A compound statement or pipeline with a downloader inside, redirected to files: those files hold the download. */
export function noteCompoundFetch(synthetic: Cmd, body: Node, ctx: Ctx, scope: Scope): void {
  if (!sourceKinds([body]).download) return;
  for (const w of fileWrites(synthetic)) mark(ctx, fileKey(w, synthetic.cwd, scope.relCwd), "a redirection filled from a download");
}

const PACKAGE_TOOLS = new Set(["dpkg", "rpm", "apt", "apt-get", "dnf", "yum", "zypper", "pip", "pip3", "npm", "pnpm", "yarn"]);

/** Package files installed by a package manager run their maintainer scripts (as root): they are runs too. */
export function packageFiles(cmd: Cmd): Arg[] {
  if (!PACKAGE_TOOLS.has(cmd.name)) return [];
  const ops = cmd.args.filter((a) => !a.text.startsWith("-"));
  switch (cmd.name) {
    case "dpkg":
      return cmd.args.some((a) => /^(-[a-zA-Z]*i|--install)$/.test(a.text)) ? ops : [];
    case "rpm":
      return cmd.args.some((a) => /^(-[a-zA-Z]*[iUF]|--install|--upgrade|--freshen)/.test(a.text)) ? ops : [];
    case "apt": case "apt-get": case "dnf": case "yum": case "zypper": case "pip": case "pip3": case "npm": case "pnpm": case "yarn":
      return ["install", "reinstall", "localinstall", "in", "i", "add"].includes(ops[0]?.text ?? "") ? ops.slice(1).filter((a) => a.text.includes("/") || /\.(deb|rpm|whl|tgz|tar\.gz|zip)$/.test(a.text)) : [];
    default:
      return [];
  }
}

const PROJECT_TOOLS = new Set(["make", "gmake", "npm", "yarn", "pnpm", "bun", "cargo", "go", "pip", "pip3"]);

/**
 * Build tools and package managers run the project's own scripts (Makefile rules, package.json scripts, build.rs,
 * setup.py): the project file they read in the working directory (or `-C DIR`) is a run of that file's code.
 */
export function projectFiles(cmd: Cmd): Arg[] {
  if (!PROJECT_TOOLS.has(cmd.name)) return [];
  const ops = cmd.args.filter((a) => !a.text.startsWith("-")).map((a) => a.text);
  const dir = (() => {
    const i = cmd.args.findIndex((a) => a.text === "-C" || a.text === "--directory" || a.text === "--prefix");
    return i >= 0 ? `${cmd.args[i + 1]?.text ?? "."}/` : "";
  })();
  const file = (name: string): Arg[] => [literalArg(`${dir}${name}`)];
  switch (cmd.name) {
    case "make": case "gmake": {
      const f = cmd.args.findIndex((a) => a.text === "-f" || a.text === "--file" || a.text === "--makefile");
      return f >= 0 && cmd.args[f + 1] ? [cmd.args[f + 1]!] : file("Makefile");
    }
    case "npm": case "yarn": case "pnpm": case "bun":
      return ops.length === 0 || ops.some((o) => ["install", "i", "ci", "run", "run-script", "test", "start", "build", "exec", "rebuild"].includes(o)) ? file("package.json") : [];
    case "cargo":
      return ["build", "run", "test", "install", "bench", "check"].includes(ops[0] ?? "") && !ops.slice(1).some((o) => /^[a-z][\w-]*$/.test(o) && ops[0] === "install") ? file("Cargo.toml") : [];
    case "go":
      return ["run", "build", "generate", "test", "install"].includes(ops[0] ?? "") && !ops.some((o) => o.includes("@")) ? file("go.mod") : [];
    case "pip": case "pip3":
      return ops[0] === "install" && ops.slice(1).some((o) => o === "." || o.startsWith("./") || o.startsWith("/")) ? ops.slice(1).filter((o) => /^(\.|\/)/.test(o)).map((o) => literalArg(`${o}/setup.py`)) : [];
    default:
      return [];
  }
}

/**
 * The unpacked-tree entry (`DIR/**`) whose tree holds `key`, if any: each ancestor directory of `key` is looked up,
 * so the cost is the path's depth, not the number of trees (`.` holds every relative path).
 */
function unpackedUnder(fetched: ReadonlyMap<string, Fetched>, key: string): string | undefined {
  if (!/^[/~?]/.test(key) && fetched.has("./**")) return "./**";
  for (let i = key.lastIndexOf("/"); i >= 0; i = key.lastIndexOf("/", i - 1)) {
    const tree = `${i === 0 ? "" : key.slice(0, i)}/**`;
    if (fetched.has(tree)) return tree;
    if (i === 0) break;
  }
  return undefined;
}

/** At the end of an analysis: every run of a file some downloader wrote is remote code execution. */
export function settleRuns(ctx: Ctx): void {
  if (ctx.fetched.size === 0 || ctx.complex) return;
  const found = (k: string): string | undefined => (ctx.fetched.has(k) ? k : unpackedUnder(ctx.fetched, k));
  for (const r of ctx.runs) {
    // A bare name is looked up when it runs: only a download made before it can be what it finds.
    let hit: string | undefined;
    if (r.bare) {
      for (const d of PATH_DIRS) {
        const k = found(`${d}/${r.arg.text}`);
        if (k !== undefined && ctx.fetched.get(k)!.seq < r.seq) { hit = k; break; }
      }
    } else hit = found(fileKey(r.arg, r.cwd, r.relCwd));
    if (hit === undefined) continue;
    emit(ctx, r.scope, "download_to_interpreter", r.node, `${r.how} ${r.display}, which ${ctx.fetched.get(hit)!.what} earlier in the line`);
  }
}
