import { AjvJsonSchemaValidator } from "@modelcontextprotocol/server/validators/ajv";
import { errorResult } from "./result.ts";
import type { ToolResult, ToolSpec } from "./tool-spec.ts";

/** The SDK's own JSON Schema 2020-12 validator (ajv, bundled in the SDK): the one an SDK client checks with. */
const validators = new AjvJsonSchemaValidator();

/** One compiled check per tool spec (specs are built once at start and shared by every server instance). */
const compiled = new WeakMap<ToolSpec, (value: unknown) => string | null>();

function checkerOf(tool: ToolSpec, schema: Record<string, unknown>): (value: unknown) => string | null {
  let check = compiled.get(tool);
  if (!check) {
    const validate = validators.getValidator(schema);
    check = (value) => { const r = validate(value); return r.valid ? null : r.errorMessage ?? "it does not match"; };
    compiled.set(tool, check);
  }
  return check;
}

/** Longest validation message quoted in the refusal, in characters. */
const MAX_DETAIL = 600;

/**
 * The front's check of a tool result before it leaves (issue 21, "what the front trusts"): a result with
 * `structuredContent` must match the `outputSchema` this server listed for the tool (MCP: a client
 * validates it and fails the whole call with a bare -32602 when it does not), and a successful result of a
 * tool with an outputSchema must carry structuredContent. A result that fails is replaced by an `isError`
 * result with code `protocol_error` that names the tool and what did not match; nothing of the daemon's
 * answer is passed on. This is a shape check, not a safety decision (the daemon made those).
 */
export function checkAnswer(tool: ToolSpec, result: ToolResult): ToolResult {
  const schema = tool.outputSchema;
  if (schema === undefined) return result;
  let problem: string | null;
  if (result.structuredContent === undefined) problem = result.isError ? null : "it carries no structuredContent";
  else problem = checkerOf(tool, schema)(result.structuredContent);
  if (problem === null) return result;
  const detail = problem.length > MAX_DETAIL ? `${problem.slice(0, MAX_DETAIL)}…` : problem;
  return errorResult({
    code: "protocol_error",
    message: `The daemon's answer to ${tool.name} does not match the outputSchema this MCP server listed for it (${detail}), so it was not passed on.`,
    hint: "The MCP server and the daemon are probably different hostgate builds: restart the daemon or this MCP server so that both run one build (`hostgate doctor` says which daemon is used).",
  });
}
