import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ALLOWED_EXCEPTIONS, checkLayers, importsOf, LAYER_RULES, matches } from "./layers.ts";

const SRC = join(import.meta.dirname, "..", "..", "src");

describe("layers (DESIGN.md: what may import what) over the real import graph", () => {
  it("src/ has no import that crosses a layer outside the recorded exceptions", () => {
    expect(checkLayers(SRC).map((v) => `${v.from} → ${v.specifier}${v.dynamic ? " (dynamic)" : ""}: ${v.why}`)).toEqual([]);
  });

  it("every recorded exception still matches a real import and gives its reason", () => {
    const none = checkLayers(SRC, []);
    for (const e of ALLOWED_EXCEPTIONS) {
      expect(e.why.length, e.from).toBeGreaterThan(20);
      expect(none.some((v) => matches(e.from, v.from)), `exception ${e.from} → ${e.to} no longer needed: remove it`).toBe(true);
    }
  });

  it("mcp/ never reaches adapters/, app/ or daemon/ and core/ never Node built-ins (the rules themselves)", () => {
    expect(LAYER_RULES.mcp.may).not.toContain("adapters");
    expect(LAYER_RULES.mcp.may).not.toContain("app");
    expect(LAYER_RULES.mcp.may).not.toContain("daemon");
    expect(LAYER_RULES.core.node).toBe(false);
    expect(LAYER_RULES.app.may).not.toContain("adapters");
  });
});

describe("the checker fails on planted forbidden imports (fixture graph)", () => {
  const plant = (files: Record<string, string>): string => {
    const root = join(mkdtempSync(join(tmpdir(), `hg-seams-layers-${process.pid}-`)), "src");
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(root, path, ".."), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    return root;
  };

  it("reports static, type-only, re-exported and dynamic crossings, built-ins in core and computed imports", () => {
    const root = plant({
      "core/pure.ts": 'import { readFileSync } from "node:fs";\nexport const x = readFileSync;\n',
      "core/ok.ts": 'import type { Tree } from "web-tree-sitter";\nimport { z } from "zod";\nexport type T = Tree;\nexport const s = z.string();\n',
      "mcp/tool.ts": 'import { run } from "../app/use-case.ts";\nexport const t = run;\n',
      "mcp/lazy.ts": 'export async function f() { return import("../adapters/os.ts"); }\n',
      "mcp/reexport.ts": 'export { run } from "../daemon/root.ts";\n',
      "app/use-case.ts": 'import type { Os } from "../adapters/os.ts";\nexport const run = (o: Os) => o;\n',
      "app/computed.ts": 'export const g = (m: string) => import(m);\n',
      "adapters/os.ts": 'import { spawn } from "node:child_process";\nexport type Os = typeof spawn;\n',
      "daemon/root.ts": 'import { run } from "../app/use-case.ts";\nimport "../adapters/os.ts";\nexport { run };\n',
    });
    const found = checkLayers(root, []).map((v) => `${v.from} → ${v.specifier}${v.dynamic ? " (dynamic)" : ""}`);
    expect(found.sort()).toEqual([
      "app/computed.ts → <computed> (dynamic)",
      "app/use-case.ts → ../adapters/os.ts",
      "core/pure.ts → node:fs",
      "mcp/lazy.ts → ../adapters/os.ts (dynamic)",
      "mcp/reexport.ts → ../daemon/root.ts",
      "mcp/tool.ts → ../app/use-case.ts",
    ]);
  });

  it("a forbidden import planted into a copy of the real src/ fails the check", () => {
    const root = join(mkdtempSync(join(tmpdir(), `hg-seams-layers-real-${process.pid}-`)), "src");
    cpSync(SRC, root, { recursive: true });
    writeFileSync(join(root, "mcp", "planted.ts"), 'export const load = () => import("../adapters/audit-sqlite.ts");\n');
    expect(checkLayers(root).map((v) => v.from)).toEqual(["mcp/planted.ts"]);
  });

  it("sees every import form TypeScript has", () => {
    const forms = importsOf("x.ts", 'import a from "a";\nimport type { B } from "b";\nexport * from "c";\nexport type { D } from "d";\nconst e = await import("e");\ntype F = import("f").F;\nimport "g";\n');
    expect(forms).toEqual([
      { specifier: "a", dynamic: false, typeOnly: false },
      { specifier: "b", dynamic: false, typeOnly: true },
      { specifier: "c", dynamic: false, typeOnly: false },
      { specifier: "d", dynamic: false, typeOnly: true },
      { specifier: "e", dynamic: true, typeOnly: false },
      { specifier: "f", dynamic: false, typeOnly: true },
      { specifier: "g", dynamic: false, typeOnly: false },
    ]);
  });
});
