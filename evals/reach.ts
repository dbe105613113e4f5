/**
 * Reachability eval (issue 24): every everyday request of evals/reach.json must have its golden call reachable from
 * the DEFAULT tools/list within two calls. The path is derived from the catalogue, so the eval checks whatever exists:
 * - a read listed as a direct tool (core/catalogue/surface.ts) is one call: the tool with the case's args;
 * - any other action is two: `find_actions` (by the case's toolset when the action is in it, else by its access),
 *   which must return it with its params schema (the daemon's own findActions over the default exposure), then
 *   `read_action { action, args }` for a read or `plan { steps: [{ action, params }] }` for a change;
 * - an action the catalogue does not hold yet is `pending` when the case names its `owner` branch, else a problem.
 * The case's args must parse with the action's params schema. A case's optional `query` (the words a model would type,
 * e.g. "largest files") must find its action among the first {@link QUERY_TOP} answers of `find_actions { query }`; and
 * every prompt itself is tried as a query (its first 64 characters): `by_words` counts how many find their action
 * within the answer (measured, reported; test/evals.test.ts holds a floor). `npx tsx evals/reach.ts` prints it all.
 */
import { readFileSync } from "node:fs";
import { z } from "zod";
import { describeAction } from "../src/app/describe.ts";
import { DEFAULT_EXPOSURE } from "../src/app/exposure.ts";
import { findActions } from "../src/app/find-actions.ts";
import { toolNameOf, type Action } from "../src/core/catalogue/action.ts";
import { CATALOGUE } from "../src/core/catalogue/index.ts";
import { ACTION_TOOLSETS } from "../src/core/toolsets.ts";
import { describeIssues } from "../src/core/errors.ts";
import { FIXED_TOOLS, splitListed } from "../src/mcp/server.ts";
import { exposeTools } from "../src/mcp/toolsets.ts";
import { directTool } from "../src/mcp/tools/direct.ts";
import type { ToolSpec } from "../src/mcp/tool-spec.ts";

const caseSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9-]+$/),
  prompt: z.string().min(1),
  action: z.string().regex(/^[A-Z][A-Za-z0-9]+$/),
  toolset: z.enum(ACTION_TOOLSETS),
  args: z.record(z.string(), z.unknown()),
  owner: z.string().optional(),
  query: z.string().min(1).max(64).optional(),
});
export const reachSchema = z.strictObject({ version: z.literal(1), notes: z.string().optional(), cases: z.array(caseSchema) });
export type ReachCorpus = z.infer<typeof reachSchema>;

/** One call of a golden path. */
export interface PathCall { tool: string; args: Record<string, unknown> }
/** The eval's verdict: problems (empty when valid), each reached case's path, and the cases waiting for their action. */
export interface ReachResult { problems: string[]; reached: { id: string; path: PathCall[] }[]; pending: { id: string; action: string; owner: string }[]; by_words: { found: number; cases: number } }

/** How high a case's `query` must rank its action in find_actions' answer. */
export const QUERY_TOP = 3;

/** Names of the tools a default configuration lists (no skills gate asked for: gated tools left out). */
export function defaultListed(catalogue: readonly Action[]): Set<string> {
  const direct = catalogue.map((a) => directTool(describeAction(a))).filter((t): t is ToolSpec => t !== null);
  const { tools } = exposeTools([...FIXED_TOOLS, ...direct], DEFAULT_EXPOSURE);
  return new Set(splitListed(tools, DEFAULT_EXPOSURE).listed.filter((t) => (t as { gate?: string }).gate === undefined).map((t) => t.name));
}

/** Checks the corpus against `catalogue` (default: the real one). */
export function checkReach(raw: unknown, catalogue: readonly Action[] = CATALOGUE): ReachResult {
  const parsed = reachSchema.safeParse(raw);
  if (!parsed.success) return { problems: parsed.error.issues.map((i) => `schema: ${i.path.join(".")}: ${i.message}`), reached: [], pending: [], by_words: { found: 0, cases: 0 } };
  const listed = defaultListed(catalogue);
  const described = catalogue.map(describeAction);
  const result: ReachResult = { problems: [], reached: [], pending: [], by_words: { found: 0, cases: 0 } };
  const seen = new Set<string>();
  for (const c of parsed.data.cases) {
    const where = `case ${c.id}`;
    if (seen.has(c.id)) result.problems.push(`${where}: duplicate id`);
    seen.add(c.id);
    const action = catalogue.find((a) => a.name === c.action);
    if (!action) {
      if (c.owner === undefined) result.problems.push(`${where}: no action ${c.action} in the catalogue, and no owner branch named (misspelt?)`);
      else result.pending.push({ id: c.id, action: c.action, owner: c.owner });
      continue;
    }
    const byWords = (query: string): number => findActions(described, DEFAULT_EXPOSURE, { query }).actions.findIndex((a) => a.action === action.name);
    result.by_words.cases++;
    if (byWords(c.prompt.slice(0, 64)) >= 0) result.by_words.found++;
    if (c.query !== undefined) {
      const at = byWords(c.query);
      if (at < 0 || at >= QUERY_TOP) result.problems.push(`${where}: find_actions { query: ${JSON.stringify(c.query)} } ${at < 0 ? "does not return" : `ranks ${c.action} at ${at + 1}, below`} ${at < 0 ? c.action : `the first ${QUERY_TOP}`}`);
    }
    const args = action.params.safeParse(c.args);
    if (!args.success) result.problems.push(`${where}: args do not fit ${c.action}'s params (${describeIssues(args.error, "args")}); fill in the case's args`);
    const tool = toolNameOf(action.name);
    if (action.access === "read_only" && listed.has(tool)) {
      result.reached.push({ id: c.id, path: [{ tool, args: c.args }] });
      continue;
    }
    if (!(action.toolsets as readonly string[]).includes(c.toolset)) {
      result.problems.push(`${where}: ${c.action} is not in toolset ${c.toolset} (its toolsets: ${action.toolsets.join(", ") || "none"})`);
      continue;
    }
    const find = { toolset: c.toolset };
    const found = findActions(described, DEFAULT_EXPOSURE, find as Parameters<typeof findActions>[2]).actions.find((a) => a.action === action.name);
    if (!found) result.problems.push(`${where}: find_actions ${JSON.stringify(find)} does not return ${c.action}`);
    else if (JSON.stringify(found.params) !== JSON.stringify(describeAction(action).input_schema)) result.problems.push(`${where}: find_actions gives ${c.action} another params schema than its own`);
    const next: PathCall = action.access === "read_only" ? { tool: "read_action", args: { action: action.name, args: c.args } } : { tool: "plan", args: { steps: [{ action: action.name, params: c.args }] } };
    for (const t of ["find_actions", next.tool]) if (!listed.has(t)) result.problems.push(`${where}: ${t} is not in the default tools/list`);
    result.reached.push({ id: c.id, path: [{ tool: "find_actions", args: find }, next] });
  }
  for (const r of result.reached) if (r.path.length > 2) result.problems.push(`case ${r.id}: ${r.path.length} calls, over two`);
  return result;
}

/** Loads and checks evals/reach.json. */
export function checkReachFile(path = new URL("./reach.json", import.meta.url)): ReachResult {
  return checkReach(JSON.parse(readFileSync(path, "utf8")));
}

if (process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].split("/").pop()!)) {
  const r = checkReachFile();
  for (const x of r.reached) console.log(`${x.id}: ${x.path.map((p) => `${p.tool} ${JSON.stringify(p.args)}`).join(" → ")}`);
  for (const p of r.pending) console.log(`${p.id}: pending ${p.action} (${p.owner})`);
  console.log(`prompts as find_actions queries: ${r.by_words.found} of ${r.by_words.cases} find their action`);
  for (const p of r.problems) console.error(p);
  process.exitCode = r.problems.length === 0 ? 0 : 1;
}
