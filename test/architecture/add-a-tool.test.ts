/**
 * Follows docs/architecture.md's "How to add a daemon-backed tool" once, on a copy of src/, with the fixture
 * in test/fixtures/add-a-tool/: the copy type-checks, a method entry without its handler does not, and the
 * new tool answers through the real daemon (in-process client and MCP tool handler).
 */
import { execFile } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STEPS, type Edit } from "../fixtures/add-a-tool/steps.ts";

const ROOT = join(import.meta.dirname, "..", "..");
const FIXTURE = join(ROOT, "test", "fixtures", "add-a-tool");
const run = promisify(execFile);

function apply(repo: string, edit: Edit): void {
  const path = join(repo, edit.file);
  const text = readFileSync(path, "utf8");
  let out: string;
  if (edit.replace !== undefined) {
    if (!edit.replace.test(text)) throw new Error(`${edit.file}: ${String(edit.replace)} not found; docs/architecture.md's how-to is out of date`);
    out = text.replace(edit.replace, edit.with ?? "");
  } else {
    const lines = text.split("\n");
    const at = lines.findIndex((l) => l.startsWith(edit.before ?? "\u0000"));
    if (at < 0) throw new Error(`${edit.file}: no line starting with "${edit.before}"; docs/architecture.md's how-to is out of date`);
    lines.splice(at, 0, edit.line ?? "");
    out = lines.join("\n");
  }
  writeFileSync(path, out);
}

const copies: string[] = [];
afterAll(() => { for (const c of copies) rmSync(c, { recursive: true, force: true }); });

/** A copy of the repository's src/ (node_modules linked) with the given edits and the fixture tool file. */
function copyWith(edits: readonly Edit[]): string {
  const repo = mkdtempSync(join(tmpdir(), `hg-seams-add-tool-${process.pid}-`));
  copies.push(repo);
  cpSync(join(ROOT, "src"), join(repo, "src"), { recursive: true });
  cpSync(join(ROOT, "package.json"), join(repo, "package.json"));
  symlinkSync(join(ROOT, "node_modules"), join(repo, "node_modules"));
  const base = JSON.parse(readFileSync(join(ROOT, "tsconfig.json"), "utf8")) as Record<string, unknown>;
  writeFileSync(join(repo, "tsconfig.json"), JSON.stringify({ ...base, include: ["src"], exclude: ["src/**/*.test.ts"] }));
  cpSync(join(FIXTURE, "whoami.ts.fixture"), join(repo, "src", "mcp", "tools", "whoami.ts"));
  for (const e of edits) apply(repo, e);
  return repo;
}

const tsc = (repo: string): Promise<{ ok: boolean; out: string }> =>
  run(process.execPath, [join(ROOT, "node_modules", "typescript", "bin", "tsc"), "--noEmit", "-p", join(repo, "tsconfig.json")], { cwd: repo, maxBuffer: 8 << 20 })
    .then(() => ({ ok: true, out: "" }), (e: unknown) => ({ ok: false, out: (e as { stdout?: string }).stdout ?? (e as Error).message }));

// Both copies are type-checked at once (two tsc processes, ≈15 s of CPU each): the tests await their own.
let whole: { repo: string; checked: Promise<{ ok: boolean; out: string }> };
let withoutHandler: Promise<{ ok: boolean; out: string }>;
beforeAll(() => {
  const repo = copyWith(STEPS);
  whole = { repo, checked: tsc(repo) };
  withoutHandler = tsc(copyWith(STEPS.filter((s) => s.file !== "src/app/handlers.ts")));
});

describe("docs/architecture.md: how to add a daemon-backed tool (followed once with a fixture tool)", () => {
  it("the documented edits type-check, and the tool answers through the daemon and the MCP tool handler", async () => {
    const { repo } = whole;
    const checked = await whole.checked;
    expect(checked.out).toBe("");
    expect(checked.ok).toBe(true);
    const src = (p: string): string => join(repo, "src", p);
    const [{ composeDaemon }, { ConfigSchema }, { FIXED_TOOLS }] = await Promise.all([
      import(src("daemon/compose.ts")) as Promise<typeof import("../../src/daemon/compose.ts")>,
      import(src("config/schema.ts")) as Promise<typeof import("../../src/config/schema.ts")>,
      import(src("mcp/server.ts")) as Promise<typeof import("../../src/mcp/server.ts")>,
    ]);
    process.env.HOSTGATE_STATE_DIR = join(repo, "state");
    const d = await composeDaemon(ConfigSchema.parse({ backend: { type: "mock" } }), { mode: "embedded", announce: () => undefined });
    delete process.env.HOSTGATE_STATE_DIR;
    try {
      const client = d.service.agent("fixture");
      const tool = FIXED_TOOLS.find((t) => t.name === "whoami");
      expect(tool?.toolsets).toEqual(["audit"]);
      expect(tool?.inputSchema).toMatchObject({ type: "object" });
      const result = await tool!.handler({}, client);
      expect(result.structuredContent).toEqual({ role: "operator", socket: "in_process" });
      const refused = await tool!.handler({ extra: 1 }, client);
      expect(refused.isError).toBe(true);
    } finally {
      await d.close();
    }
  }, 240_000); // waits on its tsc, which shares the machine with the other copy's

  it("a method entry without its handler does not compile (the compiler asks for it in app/handlers.ts)", async () => {
    const checked = await withoutHandler;
    expect(checked.ok).toBe(false);
    expect(checked.out).toMatch(/src\/app\/handlers\.ts.*whoami/s);
  }, 120_000);
});
