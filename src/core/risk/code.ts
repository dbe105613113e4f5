import { type Cmd } from "./command.ts";
import { emit, lookupIn, type Ctx, type Scope } from "./context.ts";
import { analyseCode } from "./parse.ts";
import { normalisePath } from "./paths.ts";
import type { SyntaxNode as Node } from "./syntax.ts";
import { DOWNLOADERS, TRANSFORMERS } from "./table.ts";
import { resolveWord, staticOutput, type Arg } from "./words.ts";
import { commandName } from "./command.ts";
import { noteRun } from "./fetched.ts";
import { peelWrappers } from "./wrappers.ts";

/** Code reaching a shell: words that become code, standard input, sourced files. */

export function sourceKinds(nodes: readonly Node[]): { download: boolean; decode: boolean } {
  let download = false;
  let decode = false;
  for (const n of nodes) {
    for (const c of n.descendantsOfType("command_name")) {
      if (!c) continue;
      const name = commandName(resolveWord(c).text);
      if (DOWNLOADERS.has(name)) download = true;
      if (TRANSFORMERS.has(name)) decode = true;
    }
  }
  return { download, decode };
}

/** `sh -c "$(cat f)"`, `source <(cat f)`: the files `cat` prints inside substitutions that become code are runs. */
function noteCatRuns(subs: readonly Node[], ctx: Ctx, scope: Scope, at: Cmd): void {
  for (const n of subs) {
    for (const c of n.descendantsOfType("command")) {
      const name = c.childForFieldName("name");
      if (!name || commandName(resolveWord(name).text) !== "cat") continue;
      for (const a of c.childrenForFieldName("argument")) {
        const w = resolveWord(a, lookupIn(scope));
        if (!w.text.startsWith("-")) noteRun(ctx, scope, at.node, w, "runs as code the file");
      }
    }
  }
}

/** Words that become code (`sh -c`, `eval`, `alias`): parse the static text; flag what cannot be read. */
export function codeFromArgs(args: readonly Arg[], ctx: Ctx, scope: Scope, at: Cmd): void {
  if (args.length === 0) return;
  const text = args.map((a) => a.text).join(" ");
  if (args.some((a) => a.dynamic)) {
    noteCatRuns(args.flatMap((a) => a.subs), ctx, scope, at);
    const kinds = sourceKinds(args.flatMap((a) => a.subs));
    if (kinds.download) emit(ctx, scope, "download_to_interpreter", at.node);
    else if (kinds.decode) emit(ctx, scope, "decoded_to_interpreter", at.node);
    else emit(ctx, scope, "opaque_code", at.node, "code built at run time");
  }
  if (text.trim() !== "") analyseCode(text, ctx, scope, at);
}

/** The program text reaching a shell or interpreter on standard input. */
export function stdinCode(cmd: Cmd, ctx: Ctx, scope: Scope, readable: boolean): void {
  const s = cmd.stdin;
  if (s.kind === "heredoc") {
    if (readable) analyseCode(s.body, ctx, scope, cmd);
    else emit(ctx, scope, "opaque_code", cmd.node, "here-document fed to an interpreter");
    return;
  }
  if (s.kind === "herestring") {
    if (readable) codeFromArgs([s.arg], ctx, scope, cmd);
    else emit(ctx, scope, "opaque_code", cmd.node, "here-string fed to an interpreter");
    return;
  }
  if (s.kind === "file") {
    noteRun(ctx, scope, cmd.node, s.arg, "feeds a shell or interpreter the file");
    if (s.arg.subs.length > 0) { sourceFile(s.arg, ctx, scope, cmd); return; }
    const written = scope.written.get(normalisePath(s.arg.text, scope.cwd));
    if (readable && written !== undefined) analyseCode(written, ctx, scope, cmd);
    else emit(ctx, scope, "opaque_code", cmd.node, "script read from a file");
    return;
  }
  if (s.kind === "none") {
    emit(ctx, scope, "interactive_shell", cmd.node);
    return;
  }
  // A pipe: walk upstream to see what produces the code.
  const upstream: Cmd[] = [];
  const compound: Node[] = [];
  let c: Cmd | null = s.from;
  if (!c && s.fromNode) compound.push(s.fromNode);
  for (; c && upstream.length < 64; c = c.stdin.kind === "pipe" ? c.stdin.from : null) {
    // `sudo cat f | sh`, `nice base64 -d | sh`: judge the upstream by the command its wrappers run.
    const u = peelWrappers(c);
    upstream.push(u);
    if (u !== c && u.name === "cat") for (const a of u.args) if (!a.text.startsWith("-")) noteRun(ctx, scope, cmd.node, a, "pipes into a shell or interpreter the file");
    if (c.name === "cat") for (const a of c.args) if (!a.text.startsWith("-")) noteRun(ctx, scope, cmd.node, a, "pipes into a shell or interpreter the file");
    if (c.stdin.kind === "file" && c.name === "cat") noteRun(ctx, scope, cmd.node, c.stdin.arg, "pipes into a shell or interpreter the file");
    if (c.stdin.kind === "pipe" && !c.stdin.from && c.stdin.fromNode) compound.push(c.stdin.fromNode);
  }
  const names = upstream.map((u) => u.name);
  const subs = [...upstream.flatMap((u) => [...u.args, u.argv0].flatMap((a) => a.subs)), ...compound];
  const kinds = sourceKinds(subs);
  // The reason names the pipeline as the approver would read it: `curl | sh`, `echo | base64 | bash`.
  const chain = `${[...names].reverse().join(" | ") || "(a compound command)"} | ${cmd.name}`;
  if (names.some((n) => DOWNLOADERS.has(n)) || kinds.download) { emit(ctx, scope, "download_to_interpreter", cmd.node, chain); return; }
  if (names.some((n) => TRANSFORMERS.has(n) && n !== "printf") || kinds.decode) { emit(ctx, scope, "decoded_to_interpreter", cmd.node, chain); return; }
  const src = upstream[0];
  if (readable && src && upstream.length === 1) {
    if (src.name === "echo" || src.name === "printf") {
      const words = src.args.filter((a, i) => !(src.name === "echo" && i === 0 && /^-[neE]+$/.test(a.text)));
      codeFromArgs(words.map((a) => ({ ...a, text: a.text.replace(/\\n/g, "\n") })), ctx, scope, cmd); return;
    }
    if (src.name === "cat" && src.args.length === 0) { stdinCode({ ...cmd, stdin: src.stdin }, ctx, scope, readable); return; }
  }
  emit(ctx, scope, "opaque_code", cmd.node, "code piped from another command");
}

/** `source FILE` / `sh FILE`: a script written earlier in the line is analysed, a process substitution judged, anything else `runs_script`. */
export function sourceFile(file: Arg | undefined, ctx: Ctx, scope: Scope, at: Cmd): void {
  if (!file) { emit(ctx, scope, "opaque_code", at.node, "nothing to source"); return; }
  if (file.subs.length === 0) noteRun(ctx, scope, at.node, file, at.name === "source" || at.name === "." ? "sources" : "runs the script", at.name === "source" || at.name === "." ? "both" : "file");
  const sub = file.subs.length === 1 && file.subs[0]!.type === "process_substitution" ? file.subs[0]! : null;
  const out = sub ? staticOutput(sub, lookupIn(scope)) : null;
  if (out !== null) { analyseCode(out, ctx, scope, at); return; }
  if (file.text === "/dev/stdin" || file.text === "-" || file.text === "/proc/self/fd/0") { stdinCode(at, ctx, scope, true); return; }
  if (file.subs.length > 0) {
    noteCatRuns(file.subs, ctx, scope, at);
    const kinds = sourceKinds(file.subs);
    if (kinds.download) { emit(ctx, scope, "download_to_interpreter", at.node); return; }
    if (kinds.decode) { emit(ctx, scope, "decoded_to_interpreter", at.node); return; }
    emit(ctx, scope, "opaque_code", at.node, "code produced by a substitution"); return;
  }
  const written = scope.written.get(normalisePath(file.text, scope.cwd));
  if (written !== undefined && !file.dynamic) { analyseCode(written, ctx, scope, at); return; }
  emit(ctx, scope, "runs_script", at.node, file.display);
}