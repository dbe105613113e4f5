import type { Cmd } from "./command.ts";
import { optionsOf } from "./command.ts";
import { flagValues, hasFlag, type OptionSpec } from "./options.ts";
import { scanSed } from "./sed.ts";
import { operandWrites, optionValues, programOf } from "./programs/index.ts";
import { literalArg, type Arg } from "./words.ts";

/** awk's option grammar (gawk(1)): which operand is the program. */
const AWK_OPTS: OptionSpec = { shortArgs: "fvFil", longArgs: ["file", "assign", "field-separator", "include", "load", "source"] };
// Option grammars of the other writers below, at module scope: optionsOf caches by spec object, so constants share it.
/** cp/mv/install/ln/rsync/scp: options that take a value. */
const COPY_OPTS: OptionSpec = { shortArgs: "tSmogeb", longArgs: ["target-directory", "suffix", "mode", "owner", "group", "rsh"] };
/** gzip and the other in-place compressors. */
const COMPRESS_OPTS: OptionSpec = { shortArgs: "SToM", longArgs: ["suffix", "threads", "memlimit", "output"] };
/** GNU sed(1). */
const SED_OPTS: OptionSpec = { shortArgs: "efl", longArgs: ["expression", "file", "line-length"], longFlags: ["in-place", "quiet", "silent", "regexp-extended", "separate", "null-data", "debug", "posix", "sandbox", "unbuffered", "zero-terminated"] };
/** base64/base32/basenc. */
const BASE64_OPTS: OptionSpec = { shortArgs: "ow", longArgs: ["output", "wrap"] };
/** truncate/touch/shred. */
const TRUNCATE_OPTS: OptionSpec = { shortArgs: "srdtn", longArgs: ["size", "reference", "date", "iterations"] };

/**
 * Files a command writes, as far as its text shows: output redirections; the writing arguments of common tools
 * (cp/mv/install, dd of=, sed -i and sed w, awk's `print > "file"`, find -fprint, base64 -o, truncate, touch,
 * shred); and what the program option tables (programs/table.ts) mark as written: tee's files, sort -o,
 * curl -o, git --output, strace -o…. Input redirections and descriptor duplication (`2>&1`) are not writes.
 */
export function fileWrites(cmd: Cmd): Arg[] {
  if (cmd.writesCache?.synthetic === cmd.synthetic) return cmd.writesCache.args;
  const out = computeWrites(cmd);
  cmd.writesCache = { synthetic: cmd.synthetic, args: out };
  return out;
}

function computeWrites(cmd: Cmd): Arg[] {
  const out: Arg[] = [];
  for (const r of cmd.redirects) {
    if (!r.target) continue;
    if (/^[0-9]*(>|>>|&>|&>>|>\||<>)$/.test(r.op)) out.push(r.target);
    else if (/^[0-9]*>&$/.test(r.op) && !/^[0-9-]+$/.test(r.target.text)) out.push(r.target);
  }
  if (cmd.synthetic) return out;
  // The program's option table: options whose value is a file it writes, and positional outputs (tee, uniq, xxd).
  // `-` is standard output; a value starting with `|` or `!` is a command (strace -o '|cmd'), judged elsewhere.
  for (const v of optionValues(cmd, "writes")) if (v.text !== "-" && !/^[|!]/.test(v.text)) out.push(v);
  out.push(...operandWrites(cmd).filter((a) => a.text !== "-"));
  const opnds = (spec: Parameters<typeof optionsOf>[1]): Arg[] => optionsOf(cmd, spec).operands;
  switch (cmd.name) {
    case "cp": case "mv": case "install": case "ln": case "rsync": case "scp": {
      const p = optionsOf(cmd, COPY_OPTS);
      const t = flagValues(p, "-t", "--target-directory");
      if (t.length) out.push(...t.map(literalArg));
      else if (p.operands.length >= 2) out.push(p.operands[p.operands.length - 1]!);
      break;
    }
    case "awk": case "gawk": case "mawk": case "nawk": {
      // print/printf > "file" and >> "file" inside a literal program (the first operand without -f).
      const prog = optionsOf(cmd, AWK_OPTS);
      const fromFile = hasFlag(prog, "-f", "--file");
      const text = fromFile ? "" : prog.operands[0]?.text ?? "";
      for (const m of text.matchAll(/>>?\s*"([^"]+)"/g)) out.push(literalArg(m[1]!));
      // gawk -i inplace rewrites every input file.
      if (flagValues(prog, "-i", "--include").some((v) => v.startsWith("inplace"))) out.push(...prog.operands.slice(fromFile ? 0 : 1));
      break;
    }
    case "gzip": case "gunzip": case "bzip2": case "bunzip2": case "xz": case "unxz": case "lzma": case "unlzma": case "pigz": case "zstd": case "unzstd": case "lz4": case "compress": {
      // Without -c / -l / -t the file is replaced in place (x → x.gz, x.gz → x): a write where it lives.
      const p = optionsOf(cmd, COMPRESS_OPTS);
      out.push(...flagValues(p, "-o", "--output").filter((v) => v !== "-").map(literalArg));
      if (!hasFlag(p, "-c", "--stdout", "--to-stdout", "-l", "--list", "-t", "--test", "-o", "--output")) out.push(...p.operands.filter((a) => a.text !== "-"));
      break;
    }
    case "socat": {
      // socat addresses that open a file for writing: CREATE:, OPEN:, GOPEN:, CREAT: (options after a comma).
      for (const a of cmd.args) {
        const m = /^(?:CREATE?|OPEN|GOPEN|FILE):([^,]+)/i.exec(a.text);
        if (m) out.push({ ...a, text: m[1]! });
      }
      break;
    }
    case "yq": {
      const p = programOf(cmd);
      if (p?.flags.has("--inplace")) out.push(...p.operands.slice(1));
      break;
    }
    case "history": {
      // history -w FILE / -a FILE write the history list to FILE (-r / -n read it).
      if (cmd.args.some((a) => /^-[a-z]*[wa]/.test(a.text))) out.push(...cmd.args.filter((a) => !a.text.startsWith("-")));
      break;
    }
    case "dd":
      for (const a of cmd.args) if (a.text.startsWith("of=")) out.push({ ...a, text: a.text.slice(3) });
      break;
    case "sed": {
      const p = optionsOf(cmd, SED_OPTS);
      const scripts = flagValues(p, "-e", "--expression");
      const hasScriptFlag = scripts.length > 0 || hasFlag(p, "-f", "--file");
      if (!hasScriptFlag && p.operands[0]) scripts.push(p.operands[0].text);
      for (const s of scripts) for (const w of scanSed(s).writes) out.push(literalArg(w));
      const inPlace = hasFlag(p, "-i", "--in-place") || [...p.flags.keys()].some((k) => k.startsWith("-i"));
      if (inPlace) out.push(...p.operands.slice(hasScriptFlag ? 0 : 1));
      break;
    }
    case "find": {
      for (let i = 0; i < cmd.args.length; i++) {
        const t = cmd.args[i]!.text;
        if (t === "-fprint" || t === "-fprint0" || t === "-fprintf" || t === "-fls") {
          const f = cmd.args[i + 1];
          if (f) out.push(f);
        }
      }
      break;
    }
    case "base64": case "base32": case "basenc":
      out.push(...flagValues(optionsOf(cmd, BASE64_OPTS), "-o", "--output").map(literalArg));
      break;
    case "truncate": case "touch": case "shred":
      out.push(...opnds(TRUNCATE_OPTS));
      break;
  }
  return out;
}
