/**
 * Validates the eval corpus (evals/cases.json): shape (strict), unique ids, coverage of the five
 * categories, known tool names, no mutating tool in a golden path, and grounding: every golden call is run
 * against the mock backend and must succeed (or fail with its `expect_error` code), every `answer_contains`
 * string must occur in the golden results, no `answer_must_not_contain` string may, and the results must fit
 * `max_result_bytes`. Run by test/evals.test.ts; `npx tsx evals/validate.ts` prints the problems.
 */
import { readFileSync } from "node:fs";
import { z } from "zod";
import { createMockUnitManagers } from "../src/adapters/systemd-mock.ts";
import { toolNameOf } from "../src/core/catalogue/action.ts";
import type { ActionContext } from "../src/core/catalogue/action.ts";
import { systemdActions } from "../src/core/catalogue/actions/systemd.ts";
import { HostgateError } from "../src/core/errors.ts";

export const CATEGORIES = ["discovery", "state_inspection", "definitions", "unsupported", "token_efficiency"] as const;

const callSchema = z.strictObject({
  tool: z.string(),
  args: z.record(z.string(), z.unknown()),
  expect_error: z.string().optional(),
});

const caseSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9-]+$/),
  category: z.enum(CATEGORIES),
  prompt: z.string().min(1),
  golden: z.array(callSchema),
  expect: z.strictObject({
    answer_contains: z.array(z.string()).optional(),
    answer_must_not_contain: z.array(z.string()).optional(),
    must_not_call: z.array(z.string()).optional(),
    behaviour: z.string().optional(),
    max_tool_calls: z.number().int().min(0),
    max_result_bytes: z.number().int().positive().optional(),
  }),
  notes: z.string().optional(),
});

export const corpusSchema = z.strictObject({ version: z.literal(1), backend: z.literal("mock"), cases: z.array(caseSchema) });
export type EvalCorpus = z.infer<typeof corpusSchema>;

const direct = new Map(systemdActions.filter((a) => a.access === "read_only").map((a) => [toolNameOf(a.name), a]));
const allTools = new Set(systemdActions.map((a) => toolNameOf(a.name)));

/** Returns a list of problems (empty when the corpus is valid). */
export async function validateEvalCorpus(raw: unknown): Promise<string[]> {
  const parsed = corpusSchema.safeParse(raw);
  if (!parsed.success) return parsed.error.issues.map((i) => `schema: ${i.path.join(".")}: ${i.message}`);
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const cat of CATEGORIES) {
    const n = parsed.data.cases.filter((c) => c.category === cat).length;
    if (n < 2) problems.push(`category ${cat} has ${n} cases; at least 2 are required`);
  }
  for (const c of parsed.data.cases) {
    const where = `case ${c.id}`;
    if (seen.has(c.id)) problems.push(`${where}: duplicate id`);
    seen.add(c.id);
    if (c.golden.length > c.expect.max_tool_calls) problems.push(`${where}: golden path has ${c.golden.length} calls, over max_tool_calls`);
    for (const t of c.expect.must_not_call ?? []) if (!allTools.has(t)) problems.push(`${where}: must_not_call names unknown tool ${t}`);
    if (c.category === "unsupported" && c.expect.behaviour === undefined) problems.push(`${where}: unsupported cases must describe the expected behaviour`);
    const ctx = { units: createMockUnitManagers() } as unknown as ActionContext;
    const outputs: string[] = [];
    for (const call of c.golden) {
      const action = direct.get(call.tool);
      if (action === undefined) {
        problems.push(`${where}: golden tool ${call.tool} is not a direct read-only tool`);
        continue;
      }
      try {
        const out = JSON.stringify(await action.run(action.params.parse(call.args), ctx));
        if (call.expect_error !== undefined) problems.push(`${where}: ${call.tool} succeeded but ${call.expect_error} was expected`);
        outputs.push(out);
      } catch (e) {
        const code = e instanceof HostgateError ? e.code : "internal_error";
        if (call.expect_error !== code) problems.push(`${where}: ${call.tool} failed with ${code}: ${(e as Error).message}`);
        else outputs.push(JSON.stringify({ code, message: (e as Error).message }));
      }
    }
    const all = outputs.join("\n");
    for (const s of c.expect.answer_contains ?? []) if (!all.includes(s)) problems.push(`${where}: answer_contains ${JSON.stringify(s)} is not grounded in the golden results`);
    for (const s of c.expect.answer_must_not_contain ?? []) if (all.includes(s)) problems.push(`${where}: golden results contain forbidden ${JSON.stringify(s)}`);
    const bytes = new TextEncoder().encode(all).length;
    if (c.expect.max_result_bytes !== undefined && bytes > c.expect.max_result_bytes) problems.push(`${where}: golden results are ${bytes} bytes, over max_result_bytes ${c.expect.max_result_bytes}`);
  }
  return problems;
}

/** Loads and validates evals/cases.json. */
export async function validateEvalFile(path = new URL("./cases.json", import.meta.url)): Promise<string[]> {
  return validateEvalCorpus(JSON.parse(readFileSync(path, "utf8")));
}

if (process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].split("/").pop()!)) {
  const problems = await validateEvalFile();
  for (const p of problems) console.error(p);
  console.error(problems.length === 0 ? "evals: valid" : `evals: ${problems.length} problem(s)`);
  process.exitCode = problems.length === 0 ? 0 : 1;
}
