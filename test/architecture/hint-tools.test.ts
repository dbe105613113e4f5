import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { defaultListed } from "../../evals/reach.ts";
import { toolNameOf } from "../../src/core/catalogue/action.ts";
import { CATALOGUE } from "../../src/core/catalogue/index.ts";
import { FIXED_TOOLS } from "../../src/mcp/server.ts";

/**
 * Issue 24 (trial f24b finding 2): every hint and `next` text the catalogue can produce names only tools the model
 * can call from the DEFAULT tools/list (an unlisted read is named as `read_action { action: "ListUsers" }`, a change
 * as a plan step). Scanned from the source: the text of every `hint`/`next` property, variable or assignment (string
 * and template literals, through ternaries and concatenation) under src/core, src/adapters, src/app and src/daemon.
 * An off-by-default tool (exec_on_host) may be named only beside the switch that turns it on (`exec.enabled`).
 * Left out: the skills feature (its tools sit behind their own gates and its hints name those gates) and
 * app/exec-on-host.ts (exec_on_host's own answers, produced only when that tool was called).
 */
const ROOT = resolve(import.meta.dirname, "../..");
const DIRS = ["src/core", "src/adapters", "src/app", "src/daemon"];
const SKIP = [/\/skills(\/|-)/, /^src\/app\/exec-on-host\.ts$/];
const OFF_BY_DEFAULT: Record<string, string> = { exec_on_host: "exec.enabled" };

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    if (statSync(p).isDirectory()) return files(p);
    return p.endsWith(".ts") && !p.endsWith(".test.ts") ? [p] : [];
  });
}

/** The literal text pieces of an expression (string literals, template heads/spans), anywhere inside it. */
function texts(node: ts.Node): string[] {
  const out: string[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) out.push(n.text);
    else if (ts.isTemplateExpression(n)) { out.push(n.head.text); for (const s of n.templateSpans) { visit(s.expression); out.push(s.literal.text); } return; }
    ts.forEachChild(n, visit);
  };
  visit(node);
  return out;
}

const HINT_NAME = /^(hint|next|[A-Z_]*HINT)$/;

/** Every hint/next text of one source file, with its line. */
export function hintTexts(path: string): { line: number; text: string }[] {
  const sf = ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.Latest, true);
  const out: { line: number; text: string }[] = [];
  const add = (n: ts.Node, value: ts.Node): void => { out.push({ line: sf.getLineAndCharacterOfPosition(n.getStart()).line + 1, text: texts(value).join("") }); };
  const visit = (n: ts.Node): void => {
    if (ts.isPropertyAssignment(n) && HINT_NAME.test(n.name.getText(sf))) add(n, n.initializer);
    else if (ts.isVariableDeclaration(n) && n.initializer && HINT_NAME.test(n.name.getText(sf))) add(n, n.initializer);
    else if (ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isPropertyAccessExpression(n.left) && HINT_NAME.test(n.left.name.text)) add(n, n.right);
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

describe("hints lead somewhere (issue 24)", () => {
  const listed = defaultListed(CATALOGUE);
  const tools = new Set([...CATALOGUE.map((a) => toolNameOf(a.name)), ...FIXED_TOOLS.map((t) => t.name)]);
  const unlistedIn = (text: string): string[] => [...text.matchAll(/\b[a-z0-9]+(?:_[a-z0-9]+)+\b/g)].map((m) => m[0])
    .filter((w) => tools.has(w) && !listed.has(w) && !(OFF_BY_DEFAULT[w] !== undefined && text.includes(OFF_BY_DEFAULT[w])));

  it("the scan finds the texts it must judge (a hint naming an unlisted tool is caught)", () => {
    const sample = join(ROOT, "test/fixtures/hint-sample.ts.txt");
    const found = hintTexts(sample);
    expect(found.map((h) => h.text)).toEqual([
      "list_users shows the accounts.",
      "Call list_groups or read_action { action: \"ListGroups\" }.",
      "Either get_load or list_swap.",
      "Run it with exec_on_host.",
      "Run it with exec_on_host (exec.enabled: true in the config turns it on).",
    ]);
    expect(found.map((h) => unlistedIn(h.text))).toEqual([["list_users"], ["list_groups"], ["list_swap"], ["exec_on_host"], []]);
  });

  it("no hint or next text under src/core, src/adapters, src/app, src/daemon names a tool the default tools/list lacks", () => {
    expect(listed.has("read_action") && listed.has("plan") && listed.has("find_actions")).toBe(true);
    const bad: string[] = [];
    let seen = 0;
    for (const dir of DIRS) {
      for (const f of files(join(ROOT, dir))) {
        const rel = relative(ROOT, f);
        if (SKIP.some((r) => r.test(rel))) continue;
        for (const h of hintTexts(f)) {
          seen++;
          for (const t of unlistedIn(h.text)) bad.push(`${rel}:${h.line}: ${t} in ${JSON.stringify(h.text.slice(0, 120))}`);
        }
      }
    }
    expect(seen).toBeGreaterThan(200);
    expect(bad).toEqual([]);
  });
});
