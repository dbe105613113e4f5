/**
 * Size caps that hold everywhere (DESIGN.md, "Rules that hold everywhere"): tool arguments 64 KiB, a query
 * 1 KiB, a path 1 KiB, an answer 1 MiB. Bigger answers become an error that says how to narrow the request.
 */
export const LIMITS = {
  argumentBytes: 64 * 1024,
  queryBytes: 1024,
  pathBytes: 1024,
  answerBytes: 1024 * 1024,
} as const;

/** UTF-8 byte length of a string without allocating a buffer. */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) { n += 4; i++; }
    else n += 3; // BMP character, or a lone surrogate (encoded as U+FFFD, 3 bytes, like Buffer.byteLength)
  }
  return n;
}

/**
 * Finds the first control character a tool argument must not carry: NUL and other C0 characters except
 * tab, newline and carriage return, plus DEL. NUL truncates strings at C boundaries, so a path check would
 * see one value and the OS another (corpus case M036). Returns the offending path in the value or null.
 */
export function findControlCharacter(value: unknown, path = "arguments"): string | null {
  if (typeof value === "string") {
    return /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(value) ? path : null;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const hit = findControlCharacter(value[i], `${path}[${i}]`);
      if (hit) return hit;
    }
    return null;
  }
  if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      const hit = findControlCharacter(k, `${path} key`) ?? findControlCharacter(v, `${path}.${k}`);
      if (hit) return hit;
    }
  }
  return null;
}
