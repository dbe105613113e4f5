/**
 * fnmatch-style glob matching for unit-name patterns (`*`, `?`, `[abc]`, `[a-z]`, `[!x]`), as
 * `systemctl list-units PATTERN` uses. Iterative with single-star backtracking: O(pattern × name) worst case,
 * never exponential (no regex is built from the pattern).
 */

/** True when the string contains a glob metacharacter. */
export function isGlob(s: string): boolean {
  return s.includes("*") || s.includes("?") || s.includes("[");
}

/** Matches one class starting at p[i] === "[" against c; returns [matched, indexAfterClass] or null when unterminated. */
function matchClass(p: string, i: number, c: string): [boolean, number] | null {
  let j = i + 1;
  const negate = p[j] === "!" || p[j] === "^";
  if (negate) j++;
  let matched = false;
  let first = true;
  while (j < p.length && (first || p[j] !== "]")) {
    first = false;
    const lo = p[j]!;
    if (p[j + 1] === "-" && j + 2 < p.length && p[j + 2] !== "]") {
      const hi = p[j + 2]!;
      if (c >= lo && c <= hi) matched = true;
      j += 3;
    } else {
      if (c === lo) matched = true;
      j++;
    }
  }
  if (j >= p.length) return null;
  return [matched !== negate, j + 1];
}

/** Whether `name` matches glob `pattern` (whole string). An unterminated `[` matches itself literally. */
export function globMatch(pattern: string, name: string): boolean {
  let p = 0;
  let n = 0;
  let starP = -1;
  let starN = 0;
  while (n < name.length) {
    const pc = pattern[p];
    if (pc === "*") {
      starP = p++;
      starN = n;
      continue;
    }
    if (pc === "?") {
      p++;
      n++;
      continue;
    }
    if (pc === "[") {
      const r = matchClass(pattern, p, name[n]!);
      if (r === null ? name[n] === "[" : r[0]) {
        p = r === null ? p + 1 : r[1];
        n++;
        continue;
      }
    } else if (pc !== undefined && pc === name[n]) {
      p++;
      n++;
      continue;
    }
    if (starP < 0) return false;
    p = starP + 1;
    n = ++starN;
  }
  while (pattern[p] === "*") p++;
  return p === pattern.length;
}
