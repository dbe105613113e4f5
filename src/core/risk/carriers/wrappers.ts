import { commandName, innerCmd, type Cmd } from "../command.ts";
import { codeFromArgs } from "../code.ts";
import { emit, type Ctx, type Scope } from "../context.ts";
import { applyRules, inspect } from "../inspect.ts";
import { parseOptions } from "../options.ts";
import { INTERPRETERS, SHELLS } from "../table.ts";
import { literalArg, type Arg } from "../words.ts";
import { WRAPPERS } from "../wrappers.ts";

/** Carriers for wrappers (sudo, env, timeout…: the rest of the line is another command) and xargs. */

export function unwrap(cmd: Cmd, ctx: Ctx, scope: Scope): void {
  const spec = WRAPPERS[cmd.name]!;
  const p = parseOptions(cmd.args, spec.options);
  if (spec.noExec?.some((f) => p.flags.has(f))) return;
  const env = [...(p.flags.get("-S") ?? []), ...(p.flags.get("--split-string") ?? [])];
  if (cmd.name === "env" && env.length) { codeFromArgs(env.map(literalArg), ctx, scope, cmd); return; }
  const cmdFlag = [...(p.flags.get("-c") ?? []), ...(p.flags.get("--command") ?? [])];
  if ((cmd.name === "flock" || cmd.name === "runuser") && cmdFlag.length) { codeFromArgs(cmdFlag.map(literalArg), ctx, scope, cmd); return; }
  // systemd-run -p Exec…=LINE: another command line the unit runs (its `-@:+!` prefixes are flags, not the program).
  if (cmd.name === "systemd-run") {
    for (const v of [...(p.flags.get("-p") ?? []), ...(p.flags.get("--property") ?? [])]) {
      const m = /^Exec[A-Za-z]*=[-@:+!]*(.*)$/s.exec(v);
      if (m) codeFromArgs([literalArg(m[1]!)], ctx, scope, cmd);
    }
  }
  let rest = p.stop >= 0 ? cmd.args.slice(p.stop) : [];
  const assigns: { name: string; value: Arg }[] = [];
  rest = rest.slice(spec.skip ?? 0);
  // procps watch joins its words into one `sh -c` string, except with -x|--exec, where they are the command's argv.
  if (cmd.name === "watch" && !p.flags.has("-x") && !p.flags.has("--exec")) { codeFromArgs(rest, ctx, scope, cmd); return; }
  {
    // env documents NAME=VALUE operands; sudo and others accept them too, and no command is named X=y.
    while (rest[0] && /^[A-Za-z_][A-Za-z0-9_]*=/.test(rest[0].text)) {
      const t = rest[0].text;
      const eq = t.indexOf("=");
      assigns.push({ name: t.slice(0, eq), value: { ...rest[0], text: t.slice(eq + 1) } });
      rest = rest.slice(1);
    }
  }
  if (cmd.name === "xargs") { xargs(cmd, rest, ctx, scope); return; }
  if (rest.length === 0) {
    if (spec.shellFlags?.some((f) => p.flags.has(f)) || spec.bare === "shell") emit(ctx, scope, "interactive_shell", cmd.node, cmd.name);
    if (assigns.length) applyRules({ ...cmd, assigns, synthetic: true }, ctx, scope);
    return;
  }
  const inner = innerCmd(cmd, rest, { assigns });
  if (assigns.length) applyRules({ ...inner, synthetic: true }, ctx, scope);
  inspect(inner, ctx, scope);
}

/** Tools whose operands can be a program: fed by xargs from unseen input they run unseen code. */
const XARGS_PROGRAM_TAKERS = new Set(["sed", "awk", "gawk", "mawk", "nawk", "perl", "rsync", "find", "xargs", "parallel", "ssh", "git"]);

/** Backslash escapes as printf's format (and `echo -e`) decode them: `\n`, `\t`, `\0NNN`/`\NNN` octal, `\xHH`. */
function decodeEscapes(t: string): string {
  return t.replace(/\\(x[0-9a-fA-F]{1,2}|0?[0-7]{1,3}|.)/g, (_m, e: string) => {
    if (e[0] === "x") return String.fromCharCode(parseInt(e.slice(1), 16));
    if (/^[0-7]/.test(e)) return String.fromCharCode(parseInt(e, 8));
    return ({ n: "\n", t: "\t", r: "\r", v: "\v", f: "\f", a: "", b: "", e: "", c: "" } as Record<string, string>)[e] ?? e;
  });
}

/**
 * What a static `echo`/`printf` prints, for xargs to split into items: echo's words joined by blanks (escapes decoded,
 * since `echo -e` and `sh`'s echo do it); printf's format applied to its arguments the way printf(1) does, reusing
 * the format until they run out (`printf '%s\0' / x` prints `/\0x\0`), with every conversion printing its argument.
 */
function printedText(name: string, args: string[]): string {
  if (name === "echo") return decodeEscapes(args.filter((t) => !/^-[neE]+$/.test(t)).join(" ")) + "\n";
  const [format = "", ...rest] = args[0] === "--" ? args.slice(1) : args;
  const conv = /%[-+ #0-9.]*([a-zA-Z%])/g;
  let out = "";
  let i = 0;
  for (let round = 0; round < 64; round++) {
    out += decodeEscapes(format.replace(conv, (_m, c: string) => (c === "%" ? "%" : (rest[i++] ?? ""))));
    if (i >= rest.length || !/%[-+ #0-9.]*[a-zA-Z]/.test(format)) break;
  }
  return out;
}

/** xargs: the command it builds, with the operands from a static echo, or unknown operands from anything else. */
export function xargs(cmd: Cmd, rest: Arg[], ctx: Ctx, scope: Scope): void {
  const argv = rest.length ? rest : [literalArg("echo")];
  const src = cmd.stdin.kind === "pipe" ? cmd.stdin.from : null;
  const p = parseOptions(cmd.args, WRAPPERS.xargs!.options);
  // -0 / -d: items are split on NUL or the delimiter, not on blanks, so "rm -rf /" stays one item.
  const wholeItems = p.flags.has("-0") || p.flags.has("--null") || p.flags.has("-d") || p.flags.has("--delimiter");
  let extra: Arg[] = [];
  let unknown = true;
  if (src && (src.name === "echo" || src.name === "printf") && src.args.every((a) => !a.dynamic)) {
    const text = printedText(src.name, src.args.map((a) => a.text));
    const delim = p.flags.get("-d")?.[0] ?? p.flags.get("--delimiter")?.[0];
    // -0 splits on NUL, -d on its character, otherwise blanks and newlines separate items.
    const items = wholeItems ? text.split(delim !== undefined ? decodeEscapes(delim).slice(0, 1) || "\n" : "\0") : text.split(/\s+/);
    extra = items.filter(Boolean).map(literalArg);
    unknown = false;
  }
  // Items appended to a shell or interpreter are code assembled at run time: never resolved on our say-so.
  const runner = argv[0] ? commandName(argv[0].text) : "";
  // Input the engine cannot see, handed to a wrapper (env, nice, timeout…) or a program-taking tool (sed, awk,
  // rsync -e…), becomes the command or program itself.
  if (unknown && (Object.hasOwn(WRAPPERS, runner) || XARGS_PROGRAM_TAKERS.has(runner))) {
    emit(ctx, scope, "dynamic_command_name", cmd.node, `xargs builds the ${runner} command from input the engine cannot see`);
  }
  if ((SHELLS.has(runner) || INTERPRETERS.has(runner)) && (unknown || extra.length > 0)) {
    extra = (extra.length ? extra : [literalArg("")]).map((a) => ({ ...a, dynamic: true }));
    unknown = true;
  }
  const replace = [...(p.flags.get("-I") ?? []), ...(p.flags.get("--replace") ?? []), ...(p.flags.has("-i") ? ["{}"] : [])][0];
  if (replace) {
    // -I STR: each input item replaces STR inside the arguments (unknown items: the empty worst case).
    const items = unknown ? [""] : extra.map((a) => a.text).slice(0, 4);
    for (const item of items) {
      const replaced = argv.map((a) => (a.text.includes(replace) ? { ...a, text: a.text.split(replace).join(item), dynamic: a.dynamic || unknown } : a));
      inspect(innerCmd(cmd, replaced, { unknownOperands: unknown, stdin: { kind: "none" } }), ctx, scope);
    }
    return;
  }
  inspect(innerCmd(cmd, [...argv, ...extra], { unknownOperands: unknown, stdin: { kind: "none" } }), ctx, scope);
}
