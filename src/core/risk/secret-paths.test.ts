import { describe, expect, it } from "vitest";
import { isSecretPath, SECRET, SECRET_NAMES } from "./paths.ts";

/**
 * A pattern's alternatives, each as a whole pattern: the group that ends it (only plain text after it) split at
 * its own `|`, each part expanded the same way (`ppp\/(chap|pap)-secrets`). A pattern that ends otherwise is one.
 */
function alternatives(source: string): string[] {
  const close = source.lastIndexOf(")");
  const after = source.slice(close + 1);
  if (close < 0 || /[()|?*+{[]/.test(after)) return [source];
  let open = close;
  for (let depth = 0; open >= 0; open--) {
    if (source[open] === ")") depth++;
    else if (source[open] === "(" && --depth === 0) break;
  }
  const inner = source.slice(open + 1, close);
  const parts: string[] = [];
  let from = 0;
  for (let i = 0, depth = 0; i < inner.length; i++) {
    const c = inner[i];
    if (c === "\\") i++;
    else if (c === "(") depth++;
    else if (c === ")") depth--;
    else if (c === "|" && depth === 0) { parts.push(inner.slice(from, i)); from = i + 1; }
  }
  parts.push(inner.slice(from));
  return parts.flatMap((p) => alternatives(p).map((q) => source.slice(0, open) + q + after));
}

/** The alternatives of a rule that none of its files matches. */
const uncovered = (rule: { re: RegExp; files: readonly string[] }): string[] =>
  alternatives(rule.re.source).filter((alt) => !rule.files.some((f) => new RegExp(alt).test(f)));

const nameOf = (f: string): string => f.slice(f.lastIndexOf("/") + 1);

describe("secret paths: one table (SECRET) for every path and for a glob's last component", () => {
  it("every alternative of every rule has a secret file in its files (a secret added to a pattern only fails here)", () => {
    expect(SECRET.flatMap((r) => uncovered(r).map((alt) => `${r.re.source}: ${alt}`))).toEqual([]);
    // The check itself: an alternative without a file is reported.
    expect(uncovered({ re: /^\/etc\/(shadow|newsecret)\.db$/, files: ["/etc/shadow.db"] })).toEqual(["^\\/etc\\/newsecret\\.db$"]);
    expect(uncovered({ re: /^\/etc\/(a|b\/(c|d))$/, files: ["/etc/a", "/etc/b/c"] })).toEqual(["^\\/etc\\/b\\/d$"]);
  });

  it("every file is secret read as it is and through a glob in its name (both uses of the table)", () => {
    for (const { re, files } of SECRET) {
      for (const f of files) {
        expect(re.test(f), `${f} against ${re.source}`).toBe(true);
        expect(isSecretPath(f), f).toBe(true);
        const name = nameOf(f);
        const everywhere = !name.startsWith(".") && isSecretPath(`/srv/${name}`);
        // A name secret in every directory is matched by the pattern itself, never tried for `*` (cat /etc/nginx/*).
        expect(SECRET_NAMES.includes(name), name).toBe(!everywhere);
        const glob = `${f.slice(0, f.lastIndexOf("/"))}/${name.slice(0, name.startsWith(".") ? 2 : 1)}*`;
        if (!everywhere) expect(isSecretPath(glob), glob).toBe(true);
      }
    }
  });

  it("names are tried only where the table says they are secret: a glob elsewhere is not a secret read", () => {
    for (const glob of ["/etc/nginx/*", "/srv/app/*", "/srv/app/c*", "/tmp/sch*", "/var/log/*", "/home/u/notes/*"]) expect(isSecretPath(glob), glob).toBe(false);
    for (const glob of ["/etc/kubernetes/sched*", "/dev/kme?", "/root/.config/gcloud/acc*", "/etc/sha*", "/proc/1/env*", "/root/.e*"]) expect(isSecretPath(glob), glob).toBe(true);
  });
});
