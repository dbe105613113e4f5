import { CARRIERS } from "./carriers/index.ts";
import { innerCmd, type Cmd } from "./command.ts";
import { analyseCode } from "./parse.ts";
import { emit, spanOf, tooComplex, type Ctx, type Scope } from "./context.ts";
import { codeFromArgs } from "./code.ts";
import { fileWrites } from "./effects.ts";
import { noteFetched, noteRun, packageFiles, projectFiles } from "./fetched.ts";
import { LIMITS } from "./limits.ts";
import { normalisePath, runTimeGlob } from "./paths.ts";
import type { Rule } from "./rule.ts";
import { baseLevel, knownNames } from "./table.ts";
import { programOf } from "./programs/index.ts";
import { subscriptCode } from "./walk.ts";
import { execSettings } from "./programs/settings.ts";
import { literalArg } from "./words.ts";

/** One simple command: record it, resolve what runs, apply the rules, hand it to its carrier. */

function record(cmd: Cmd, ctx: Ctx, scope: Scope, dynamic: boolean): void {
  if (ctx.commands.length >= 1000) return;
  ctx.commands.push({
    name: cmd.name,
    argv: [cmd.argv0.display, ...cmd.args.map((a) => a.display)],
    via: cmd.via,
    depth: scope.depth,
    dynamic,
    span: spanOf(ctx, scope, cmd.node),
  });
}

/** Runs every rule that looks at `cmd` (by name, prefix or `*`; synthetic commands only get `*` rules). */
export function applyRules(cmd: Cmd, ctx: Ctx, scope: Scope): void {
  // The rendering is the same for every rule that fires on `cmd`: build it once, and only if a signal is new.
  let text: string | undefined;
  const describe = (): string => (text ??= describeCommand(cmd));
  const run = (rule: Rule): void => {
    if (rule.test?.(cmd)) emit(ctx, scope, rule.id, cmd.node, describe);
  };
  for (const rule of ctx.rules.everyCommand) run(rule);
  if (cmd.synthetic) return;
  const named = ctx.rules.byName.get(cmd.name);
  if (named) for (const rule of named) run(rule);
  for (const p of ctx.rules.prefixes) if (cmd.name.startsWith(p.prefix)) run(p.rule);
}

/** Longest rendering of a command in a signal's reason (UTF-16 units; longer is cut with "…"). */
const DESCRIBE_MAX = 120;

/**
 * The command a rule fired on, as a human reads it in the reason: its normalised words (unknown parts as `${X}` /
 * `$(…)`), its assignments and redirections, the wrappers it ran under (`sudo`, `find -exec`…), cut to DESCRIBE_MAX.
 * So the approver sees what is meant (`shred /dev/sda`), even when it was found inside `sh -c '…'` or a find -exec.
 */
export function describeCommand(cmd: Cmd): string {
  const words = [
    ...cmd.assigns.map((a) => `${a.name}=${a.value.display}`),
    ...(cmd.synthetic ? [] : [cmd.argv0.display, ...cmd.args.map((a) => a.display)]),
    ...cmd.redirects.filter((r) => r.target && r.op !== "<<").map((r) => `${r.op}${r.target!.display}`),
  ].map((w) => (w === "" ? "''" : /[\s]/.test(w) ? JSON.stringify(w) : w));
  const via = cmd.via.filter((v) => v !== "").join(" → ");
  const text = (words.join(" ") || "(a compound command)") + (cmd.everyPathUnder ? ", on every file below" : "") + (via ? `, run by ${via}` : "");
  return text.length > DESCRIBE_MAX ? `${text.slice(0, DESCRIBE_MAX - 1)}…` : text;
}

/**
 * Judges one simple command: limits, name checks (non-ASCII, dynamic, glob, path identity), written-then-run
 * scripts, the rules, code in option values and subscripts, its carrier, and its base level from the table.
 */
export function inspect(cmd: Cmd, ctx: Ctx, scope: Scope): void {
  if (ctx.complex) return;
  if (++ctx.cmds > LIMITS.maxCommands) { tooComplex(ctx, scope, cmd.node, `more than ${LIMITS.maxCommands} commands`); return; }
  ctx.words += cmd.args.length + 1;
  if (ctx.words > LIMITS.maxWords) { tooComplex(ctx, scope, cmd.node, `more than ${LIMITS.maxWords} words in commands`); return; }
  const a0 = cmd.argv0;
  if (!cmd.synthetic) {
    noteRun(ctx, scope, cmd.node, a0, "runs", "path");
    for (const f of packageFiles(cmd)) noteRun(ctx, scope, cmd.node, f, "installs the package");
    for (const f of projectFiles(cmd)) noteRun(ctx, scope, cmd.node, f, `runs (${cmd.name}) the project's scripts in`);
    // LD_PRELOAD=./x.so / LD_AUDIT load that library into the program: a run of its code.
    for (const a of cmd.assigns) if (/^LD_(PRELOAD|AUDIT)$/.test(a.name)) for (const f of a.value.text.split(/[\s:]+/)) if (f) noteRun(ctx, scope, cmd.node, { ...a.value, text: f, display: f }, `preloads (${a.name}) the library`);
    noteFetched(cmd, ctx, scope);
  }
  if (a0.nonAscii) {
    record(cmd, ctx, scope, true);
    emit(ctx, scope, "non_ascii_command_word", cmd.node);
    return;
  }
  if (a0.dynamic) {
    emit(ctx, scope, "dynamic_command_name", cmd.node);
    if (a0.text === "" || /\s/.test(a0.text)) {
      record(cmd, ctx, scope, true);
      applyRules({ ...cmd, synthetic: true }, ctx, scope);
      // `$SHELL -c '…'`: whatever the program is, a -c string is most likely code; judge it as such.
      const c = cmd.args.findIndex((a) => /^-[a-zA-Z]*c$/.test(a.text));
      if (c >= 0 && cmd.args[c + 1]) codeFromArgs([cmd.args[c + 1]!], ctx, scope, cmd);
      if (/\s/.test(a0.text)) analyseCode([a0.text, ...cmd.args.map((a) => a.text)].join(" "), ctx, scope, cmd);
      return;
    }
  }
  if (a0.glob) {
    emit(ctx, scope, "glob_command_name", cmd.node);
    record(cmd, ctx, scope, true);
    const re = globToRegExp(cmd.name);
    for (const cand of knownNames().filter((n) => re.test(n)).slice(0, 8)) inspect({ ...cmd, name: cand, argv0: literalArg(cand), optionCache: undefined, programCache: undefined, writesCache: undefined, scriptReadsCache: undefined }, ctx, scope);
    return;
  }
  record(cmd, ctx, scope, a0.dynamic);
  if (scope.functions.has(cmd.name) && !a0.text.includes("/")) return;
  const scriptWritten = scope.written.get(normalisePath(a0.text, scope.cwd));
  if (a0.text.includes("/") && scriptWritten !== undefined) {
    analyseCode(scriptWritten, ctx, scope, cmd);
    return;
  }
  if (RESERVED.has(cmd.name) && !a0.dynamic) { reservedWord(cmd, ctx, scope); return; }
  // A path names whatever file is there: only the system directories hold the program the name suggests. The
  // command is still judged as that program too (its rules can only add signals).
  // (A path through /proc/PID/root may be another mount namespace's file: never the system program.)
  if (a0.text.includes("/") && (/(^|\/)proc\//.test(a0.text) || !isSystemProgramPath(normalisePath(a0.text, scope.cwd)))) emit(ctx, scope, "untrusted_program_path", cmd.node, a0.display);
  trackState(cmd, scope);
  applyRules(cmd, ctx, scope);
  optionCode(cmd, ctx, scope);
  if (NAME_BUILTINS.has(cmd.name)) for (const a of cmd.args) subscriptCode(a.text, cmd.node, ctx, scope, cmd.name === "let");
  const carrier = CARRIERS.get(cmd.name);
  if (carrier) { carrier(cmd, ctx, scope); return; }
  const level = baseLevel(cmd.name);
  if (level === "medium") emit(ctx, scope, "mutating_command", cmd.node, cmd.name);
  else if (level !== "low") emit(ctx, scope, "unknown_command", cmd.node, cmd.name);
}

/** Builtins that take variable names (whose subscripts bash evaluates) or, for let, arithmetic expressions. */
const NAME_BUILTINS = new Set(["printf", "read", "unset", "test", "[", "let", "export", "declare", "typeset", "local", "readonly", "mapfile", "readarray", "wait"]);

/** Root-owned directories whose programs are the ones their names say (the fixed system PATH). */
const SYSTEM_BIN_DIRS = new Set(["/usr/bin", "/bin", "/usr/sbin", "/sbin"]);

/** True when `p` (normalised) is a program directly inside one of the system directories. */
export function isSystemProgramPath(p: string): boolean {
  const i = p.lastIndexOf("/");
  return i > 0 && SYSTEM_BIN_DIRS.has(p.slice(0, i));
}

/**
 * Options whose value is code (programs/table.ts): a command line is analysed as shell code, a program name is
 * judged as the command it starts, and strace/ltrace `-o '|cmd'` outputs are commands.
 */
function optionCode(cmd: Cmd, ctx: Ctx, scope: Scope): void {
  const p = programOf(cmd);
  if (!p) return;
  for (const v of execSettings(cmd)) if (v.text.trim()) codeFromArgs([v], ctx, scope, cmd);
  for (const u of p.uses) {
    const v = u.value;
    if (!v) continue;
    if (u.def.effect === "command" || (u.def.effect === "program" && (v.dynamic || /\s/.test(v.text)))) codeFromArgs([v], ctx, scope, cmd);
    else if (u.def.effect === "program") inspect(innerCmd(cmd, [v], { stdin: { kind: "none" } }), ctx, scope);
    else if (u.def.effect === "writes" && /^[|!]/.test(v.text)) codeFromArgs([{ ...v, text: v.text.slice(1) }], ctx, scope, cmd);
  }
}

/** Shell reserved words; seen as a command name only when the grammar could not place them. */
const RESERVED = new Set(["if", "then", "else", "elif", "fi", "do", "done", "while", "until", "for", "in", "case", "esac", "{", "}", "!", "coproc", "select", "function"]);

/**
 * tree-sitter-bash reads some valid lines (`! if …; then …; fi`, `! { …; }`) as commands named `if`,
 * `then`, `{`… Bash would run the words after the reserved word, so judge them as a command.
 */
function reservedWord(cmd: Cmd, ctx: Ctx, scope: Scope): void {
  let rest = cmd.args;
  if (cmd.name === "case" || cmd.name === "for" || cmd.name === "select") {
    const close = rest.findIndex((a) => a.text.endsWith(")") || a.text === "do");
    const inAt = rest.findIndex((a) => a.text === "in");
    rest = close >= 0 ? rest.slice(close + 1) : inAt >= 0 ? rest.slice(inAt + 2) : [];
  } else if (cmd.name === "function") {
    rest = [];
  }
  while (rest[0] && (RESERVED.has(rest[0].text) || /^[A-Za-z_][A-Za-z0-9_]*=/.test(rest[0].text))) rest = rest.slice(1);
  if (rest.length > 0) inspect(innerCmd(cmd, rest, { via: cmd.via }), ctx, scope);
}

function globToRegExp(glob: string): RegExp {
  let src = "";
  for (const ch of glob) {
    if (ch === "*") src += ".*";
    else if (ch === "?") src += ".";
    else if (ch === "[" || ch === "]" || ch === "!" || ch === "^" || ch === "-") src += ch === "!" ? "^" : ch;
    else src += ch.replace(/[.+(){}|$\\/]/g, "\\$&");
  }
  try {
    return new RegExp(`^${src}$`);
  } catch {
    return /^$/;
  }
}

/** cd changes where relative paths point; echo/printf into a file remembers the text (write-then-run). */
function trackState(cmd: Cmd, scope: Scope): void {
  if (cmd.name === "cd" || cmd.name === "pushd") {
    const target = cmd.args.find((a) => !a.text.startsWith("-"));
    const before = scope.cwd;
    if (!target) scope.cwd = "~";
    else scope.cwd = target.dynamic ? undefined : normalisePath(target.text, scope.cwd ?? undefined);
    // A target built at run time: keep its glob form, so `cd /proc/$PID && cat environ` still reads as /proc/*/environ.
    const guess = target?.dynamic ? normalisePath(runTimeGlob(target.display), before ?? scope.cwdGuess) : undefined;
    scope.cwdGuess = guess !== undefined && /^[/~]/.test(guess) ? guess : undefined;
    // A relative directory from an unknown one: the absolute path is unknown, but files below it are still named by it.
    scope.relCwd = before === undefined && target && !target.dynamic && scope.cwd && !/^[/~]/.test(scope.cwd) ? normalisePath(scope.cwd, scope.relCwd) : undefined;
    if (scope.cwd && !scope.cwd.startsWith("/") && !scope.cwd.startsWith("~")) scope.cwd = undefined;
    return;
  }
  if ((cmd.name === "echo" || cmd.name === "printf") && cmd.args.every((a) => !a.dynamic)) {
    const text = cmd.args.filter((a, i) => !(cmd.name === "echo" && i === 0 && /^-[neE]+$/.test(a.text))).map((a) => a.text).join(" ");
    for (const t of fileWrites(cmd)) if (!t.dynamic) scope.written.set(normalisePath(t.text, scope.cwd), text.replace(/\\n/g, "\n"));
  }
}