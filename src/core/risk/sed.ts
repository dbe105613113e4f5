/**
 * What a sed script can do besides editing a stream: GNU sed's `e` command and `s///e` flag run shell
 * commands, `w`/`W` and `s///w` write files (GNU sed manual, "Commands that run shell commands",
 * "Commands for writing files"). A small scanner over the script; unknown text is skipped, never thrown on.
 */
export interface SedEffects {
  /** Text of `e COMMAND` commands (empty string for a bare `e`, which runs the pattern space). */
  execs: string[];
  /** An `s///e` flag: the pattern space is run as a command. */
  execFlag: boolean;
  /** Files named by `w`, `W` or `s///w`. */
  writes: string[];
  /** Files named by `r` or `R` (read and inserted into the output). */
  reads: string[];
}

/** Scans one sed script. */
export function scanSed(script: string): SedEffects {
  const fx: SedEffects = { execs: [], execFlag: false, writes: [], reads: [] };
  const s = script;
  let i = 0;
  const restOfLine = (): string => {
    const nl = s.indexOf("\n", i);
    const end = nl < 0 ? s.length : nl;
    const text = s.slice(i, end);
    i = end;
    return text.trim();
  };
  const readDelimited = (delim: string): void => {
    while (i < s.length && s[i] !== delim) {
      if (s[i] === "\\") i++;
      else if (s[i] === "\n" && delim !== "\n") break;
      i++;
    }
    i++;
  };
  const address = (): void => {
    if (/[0-9]/.test(s[i] ?? "")) { while (/[0-9~]/.test(s[i] ?? "")) i++; return; }
    if (s[i] === "$") { i++; return; }
    if (s[i] === "/") { i++; readDelimited("/"); while (/[IM]/.test(s[i] ?? "")) i++; return; }
    if (s[i] === "\\" && i + 1 < s.length) { const d = s[i + 1]!; i += 2; readDelimited(d); while (/[IM]/.test(s[i] ?? "")) i++; return; }
    if (s[i] === "+" || s[i] === "~") { i++; while (/[0-9]/.test(s[i] ?? "")) i++; }
  };
  let guard = 0;
  while (i < s.length && guard++ < 100_000) {
    while (i < s.length && /[\s;}]/.test(s[i]!)) i++;
    if (i >= s.length) break;
    address();
    if (s[i] === ",") { i++; address(); }
    while (s[i] === " " || s[i] === "\t") i++;
    if (s[i] === "!") { i++; while (s[i] === " " || s[i] === "\t") i++; }
    const c = s[i];
    if (c === undefined) break;
    i++;
    if (c === "{") continue;
    if (c === "a" || c === "i" || c === "c") { restOfLine(); continue; }
    if (c === "r" || c === "R") { fx.reads.push(restOfLine()); continue; }
    if (c === "w" || c === "W") { fx.writes.push(restOfLine()); continue; }
    if (c === "e") { fx.execs.push(restOfLine()); continue; }
    if (c === "b" || c === "t" || c === "T" || c === ":" || c === "q" || c === "Q" || c === "l" || c === "L" || c === "v") {
      while (i < s.length && s[i] !== ";" && s[i] !== "\n") i++;
      continue;
    }
    if (c === "s" || c === "y") {
      const d = s[i];
      if (d === undefined) break;
      i++;
      readDelimited(d);
      readDelimited(d);
      if (c === "y") continue;
      while (i < s.length && /[a-zA-Z0-9]/.test(s[i]!)) {
        const f = s[i]!;
        i++;
        if (f === "e") fx.execFlag = true;
        if (f === "w") { fx.writes.push(restOfLine()); break; }
      }
      continue;
    }
  }
  return fx;
}
