/**
 * Shell commands inside another language's one-liner: `perl -e 'system("rm -rf /")'`, `python3 -c
 * 'import os; os.system("…")'`, `ruby -e '`…`'`, `node -e 'require("child_process").execSync("…")'`, `php -r
 * 'shell_exec("…")'`. The engine does not analyse these languages (the line stays `interpreter_code`, high); this
 * finds the calls that hand a literal string to a shell (or a literal list to exec) so that what they run is judged
 * too and can only raise the verdict. A call whose argument is not a literal is left to `interpreter_code`.
 */

/** Language families by interpreter name. */
const LANGUAGE: Record<string, "python" | "perl" | "ruby" | "node" | "php"> = {
  python: "python", python2: "python", python3: "python", perl: "perl", ruby: "ruby", irb: "ruby",
  node: "node", nodejs: "node", deno: "node", bun: "node", php: "php",
};

/** Calls that run their string argument in a shell (or their list argument as argv), per language. */
const CALLS: Record<string, RegExp> = {
  // Any receiver (`os.system`, `__import__("os").system`, `sp.run`) or none (`from os import system`).
  python: /(?<![\w])(?:system|popen[234]?|exec[lv]p?e?|spawn[lv]p?e?|run|call|check_call|check_output|getoutput|getstatusoutput|Popen|spawn)\s*\(\s*/g,
  perl: /\b(?:system|exec|readpipe)\s*\(?\s*/g,
  ruby: /\b(?:system|exec|spawn|IO\.popen|Open3\.(?:capture[23]e?|popen[23]e?|pipeline\w*))\s*\(?\s*/g,
  node: /\b(?:exec|execSync|execFile|execFileSync|spawn|spawnSync|fork)\s*\(\s*/g,
  php: /\b(?:system|exec|shell_exec|passthru|popen|proc_open|pcntl_exec)\s*\(\s*/g,
};

/** Reads a quoted literal ('…', "…", or a template `…` without ${}) at `i`; null when there is none. */
function literalAt(code: string, i: number): { text: string; end: number } | null {
  // perl q{…} / qq{…} (also with () [] <> and other delimiters): a quoted string without interpolation in q.
  const pq = /^qq?\s*([{(\[<]|[^\w\s])/.exec(code.slice(i, i + 4));
  if (pq) {
    const open = pq[1]!;
    const close = ({ "{": "}", "(": ")", "[": "]", "<": ">" } as Record<string, string>)[open] ?? open;
    const end = code.indexOf(close, i + pq[0].length);
    const text = end < 0 ? "" : code.slice(i + pq[0].length, end);
    return end < 0 || (pq[0].startsWith("qq") && text.includes("$")) ? null : { text, end: end + 1 };
  }
  const q = code[i];
  if (q !== '"' && q !== "'" && q !== "`") return null;
  let out = "";
  for (let j = i + 1; j < code.length; j++) {
    const c = code[j]!;
    if (c === "\\" && j + 1 < code.length) {
      const n = code[++j]!;
      out += ({ n: "\n", t: "\t" } as Record<string, string>)[n] ?? n;
      continue;
    }
    if (c === q) return { text: out, end: j + 1 };
    // Interpolation ("$x" in perl/php/ruby "#{x}", python f-strings are not literals) makes it a run-time value.
    if ((c === "$" && q !== "'") || (c === "#" && code[j + 1] === "{")) return null;
    out += c;
  }
  return null;
}

/** Quotes a word for the shell text rebuilt from an argv list. */
const shQuote = (w: string): string => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, "'\\''")}'`);

/**
 * The shell command lines `code` (in the language of interpreter `name`) runs with literal arguments: a string
 * argument as written (it reaches `sh -c`), a list of literal strings (`["rm", "-rf", "/"]`, perl's
 * `system("rm", "-rf", "/")`) as that argv. Backquotes in perl/ruby/php and perl's `qx{…}` are strings too.
 */
export function embeddedShell(name: string, code: string): string[] {
  const lang = Object.hasOwn(LANGUAGE, name) ? LANGUAGE[name] : undefined;
  if (!lang) return [];
  const out: string[] = [];
  for (const m of code.matchAll(CALLS[lang]!)) {
    let i = m.index + m[0].length;
    if (code[i] === "[") i++;
    const words: string[] = [];
    for (;;) {
      const lit = literalAt(code, i);
      if (!lit) break;
      words.push(lit.text);
      // `spawn("rm", ["-rf", "/"])`: the list after the program continues its argv.
      const sep = /^\s*,\s*\[?\s*/.exec(code.slice(lit.end, lit.end + 16));
      if (!sep) break;
      i = lit.end + sep[0].length;
    }
    if (words.length === 1) out.push(words[0]!);
    else if (words.length > 1) out.push(words.map(shQuote).join(" "));
  }
  if (lang === "perl" || lang === "ruby" || lang === "php") {
    for (const m of code.matchAll(/`([^`$]*)`/g)) out.push(m[1]!);
    // perl qx{…} qx(…) qx/…/, ruby %x{…} %x(…): quoted commands.
    for (const m of code.matchAll(/(?:\bqx|%x)\s*(?:\{([^}$]*)\}|\(([^)$]*)\)|([/|!])([^$]*?)\3)/g)) out.push(m[1] ?? m[2] ?? m[4] ?? "");
  }
  return out.filter((t) => t.trim() !== "");
}
