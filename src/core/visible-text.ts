/**
 * The one rule for showing untrusted text to a human who decides on it: the terminal review screen
 * (`hostgate approve`, cli/approve.ts) and the approval console (core/console/) both use it.
 */

/**
 * Makes text safe to show a human deciding on it: every control character except newline and tab (CR, ESC and
 * the rest of C0/C1, DEL), every format character (bidi controls, zero-width and invisible characters, tags,
 * soft hyphen: Unicode Cf), line and paragraph separators, default-ignorable code points and Hangul fillers are
 * shown as visible escapes such as `\r`, `\x1b` or `<U+202E>`, so a preview cannot move the cursor, hide text,
 * reorder it or look like something else.
 */
export function visible(text: string): string {
  return text.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}\u115f\u1160\u3164\uffa0]/gu, (c) => {
    if (c === "\n" || c === "\t") return c;
    if (c === "\r") return "\\r";
    const code = c.codePointAt(0)!;
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, "0")}` : `<U+${code.toString(16).toUpperCase().padStart(4, "0")}>`;
  });
}
