/**
 * Issue 22: every tool schema hostgate can publish passes what the main clients' model APIs accept. Clients
 * forward an MCP tool's `inputSchema` as the model API's tool parameters; one schema a model API rejects fails
 * every request of that client (the whole tool list is sent each time), not only calls of that tool.
 *
 * Walks every tool, not only the default tools/list: the fixed tools (gated and off-by-default ones included)
 * and one direct tool per read-only action of every distribution family, from the same code tools/list uses.
 */
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/server/validators/ajv";
import { describe, expect, it } from "vitest";
import { describeAction } from "../src/app/describe.ts";
import { CATALOGUE } from "../src/core/catalogue/index.ts";
import { FIXED_TOOLS } from "../src/mcp/server.ts";
import type { ToolSpec } from "../src/mcp/tool-spec.ts";
import { directTool } from "../src/mcp/tools/direct.ts";
import { planTool } from "../src/mcp/tools/plan.ts";
import { ListBackendsInputSchema, SearchHostsInputSchema } from "../src/ipc/hosts.ts";
import type { DaemonClient } from "../src/ipc/client.ts";

type Json = Record<string, unknown>;
const TOOLS: ToolSpec[] = [...FIXED_TOOLS, ...CATALOGUE.map((a) => directTool(describeAction(a))).filter((t): t is ToolSpec => t !== null)];

/** Every subschema of `schema` with its JSON path, the root first. */
function walk(schema: unknown, path = "$", out: [string, Json][] = []): [string, Json][] {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return out;
  const node = schema as Json;
  out.push([path, node]);
  for (const [k, v] of Object.entries(node)) {
    if (k === "properties" || k === "$defs" || k === "patternProperties") {
      for (const [name, sub] of Object.entries(v as Json)) walk(sub, `${path}.${k}.${name}`, out);
    } else if (k === "items" || k === "additionalProperties" || k === "not" || k === "propertyNames") {
      walk(v, `${path}.${k}`, out);
    } else if ((k === "anyOf" || k === "oneOf" || k === "allOf" || k === "prefixItems") && Array.isArray(v)) {
      v.forEach((sub, i) => walk(sub, `${path}.${k}[${i}]`, out));
    }
  }
  return out;
}

/**
 * What the model APIs behind the main clients reject in a tool's parameters, each with its source. A rule
 * answers the problem it finds in one (sub)schema, or null.
 */
const INPUT_RULES: { rule: string; source: string; check: (node: Json, path: string, tool: string) => string | null }[] = [
  {
    rule: "the root is a plain object schema: no oneOf/anyOf/allOf (nor not, if/then/else) at the top level",
    source: "Anthropic Messages API error 'tools.N.custom.input_schema: input_schema does not support oneOf, allOf, or anyOf at the top level' (anthropics/claude-code#5319, #5973; the whole request fails); OpenAI function calling: parameters are a JSON Schema object, and strict mode requires a root object that is not anyOf (platform.openai.com/docs/guides/structured-outputs/supported-schemas)",
    check: (node, path) => {
      if (path !== "$") return null;
      if (node.type !== "object") return `type is ${JSON.stringify(node.type)}, not "object"`;
      const found = ["oneOf", "anyOf", "allOf", "not", "if", "then", "else"].filter((k) => k in node);
      return found.length > 0 ? `top-level ${found.join(", ")}` : null;
    },
  },
  {
    rule: "no $ref / $defs: every schema is written out where it is used",
    source: "Gemini API FunctionDeclaration.parameters is a subset of the OpenAPI 3.0 Schema object without references (ai.google.dev/api/caching#Schema; Vertex AI FunctionDeclaration reference)",
    check: (node) => ("$ref" in node || "$defs" in node || "definitions" in node ? "uses $ref/$defs" : null),
  },
  {
    rule: "one type per schema, never a type array such as [\"string\", \"null\"]",
    source: "Gemini API FunctionDeclaration.parameters: OpenAPI 3.0 Schema, whose `type` is a single value (nullability is `nullable: true`), per the Vertex AI FunctionDeclaration reference",
    check: (node) => (Array.isArray(node.type) ? `type ${JSON.stringify(node.type)}` : null),
  },
  {
    rule: "property names are letters, digits and underscores, starting with a letter or an underscore, at most 64",
    source: "Vertex AI FunctionDeclaration.parameters: 'Parameter names must start with a letter or an underscore and must only contain chars a-z, A-Z, 0-9, or underscores with a maximum length of 64'",
    check: (node) => {
      const bad = Object.keys((node.properties as Json | undefined) ?? {}).filter((n) => !/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(n));
      return bad.length > 0 ? `property names ${bad.join(", ")}` : null;
    },
  },
  {
    rule: "no parameter that can carry no value (maxLength: 0, maxItems: 0, maxProperties: 0)",
    source: "issue 22: a model offered such a parameter can only be refused for using it; a parameter hostgate does not take is left out of the schema",
    check: (node) => (["maxLength", "maxItems", "maxProperties"].some((k) => node[k] === 0) ? "a maximum of 0" : null),
  },
];

describe("tool schemas the model APIs accept (issue 22)", () => {
  it("walks every tool hostgate can publish", () => {
    expect(TOOLS.length).toBeGreaterThan(35);
    expect(TOOLS.map((t) => t.name)).toEqual(expect.arrayContaining(["plan", "execute", "exec_on_host", "skills_execute", "get_load"]));
  });

  it("tool names: letters, digits, underscores and dashes, starting with a letter or an underscore, at most 64 (OpenAI function name; Gemini FunctionDeclaration.name)", () => {
    expect(TOOLS.map((t) => t.name).filter((n) => !/^[A-Za-z_][A-Za-z0-9_-]{0,63}$/.test(n))).toEqual([]);
  });

  for (const { rule, source, check } of INPUT_RULES) {
    it(`inputSchema: ${rule} (${source.slice(0, 60)}…)`, () => {
      const problems: string[] = [];
      for (const t of TOOLS) {
        for (const [path, node] of walk(t.inputSchema)) {
          const p = check(node, path, t.name);
          if (p) problems.push(`${t.name} ${path}: ${p}`);
        }
      }
      expect(problems, `${rule}\nsource: ${source}`).toEqual([]);
    });
  }

  it("the check itself finds what it looks for: plan's former oneOf schema, a type array, a maxLength 0 parameter", () => {
    const former: Json = { type: "object", properties: { intent: { type: "string" }, steps: { type: "array" } }, oneOf: [{ required: ["intent"] }, { required: ["steps"] }], additionalProperties: false };
    const found = (schema: Json): string[] => walk(schema).flatMap(([path, node]) => INPUT_RULES.map((r) => r.check(node, path, "x")).filter((p): p is string => p !== null));
    expect(found(former)).toEqual(["top-level oneOf"]);
    expect(found({ type: "object", properties: { a: { type: ["string", "null"] }, "b-c": { type: "string", maxLength: 0 } } }).sort()).toEqual(["a maximum of 0", "property names b-c", 'type ["string","null"]']);
  });

  /**
   * Output schemas are not sent to model APIs (clients validate structuredContent with them), so there the
   * nullable form `type: [X, "null"]` of JSON Schema 2020-12 is right; each is checked to be exactly one JSON
   * type plus "null", and to accept null with the validator SDK clients use, so a null the daemon sends is
   * never refused by a client.
   */
  it("outputSchema: every nullable field is [one JSON type, \"null\"] and accepts null with the SDK client's validator", () => {
    const ajv = new AjvJsonSchemaValidator();
    const problems: string[] = [];
    let nullable = 0;
    for (const t of TOOLS) {
      for (const [path, node] of walk(t.outputSchema)) {
        if (!Array.isArray(node.type)) continue;
        nullable++;
        const types = node.type as unknown[];
        const ok = types.length === 2 && types[1] === "null" && ["string", "number", "integer", "boolean", "object", "array"].includes(types[0] as string);
        if (!ok) problems.push(`${t.name} ${path}: type ${JSON.stringify(types)}`);
        else if (!ajv.getValidator(node)(null).valid) problems.push(`${t.name} ${path}: null is refused`);
      }
    }
    expect(nullable).toBeGreaterThan(0);
    expect(problems).toEqual([]);
  });

  it("what the flat schemas no longer show is still refused with a clear error: plan without intent or steps, or with both; cache_dir and config_path", async () => {
    const never: DaemonClient = { call: () => { throw new Error("the daemon must not be asked"); }, close: () => Promise.resolve() };
    const message = async (args: Json): Promise<string> => (JSON.parse((await planTool.handler(args, never)).content[0]!.text) as { error: { code: string; message: string } }).error.message;
    expect(await message({ host: "local" })).toContain('give either "intent" (what to change, in words) or "steps"');
    expect(await message({ intent: "restart nginx", steps: [{ action: "RestartService", params: { unit: "nginx.service" } }] })).toContain("not both");
    expect(SearchHostsInputSchema.safeParse({ cache_dir: "/tmp/x" }).error?.issues[0]?.message).toContain("cache_dir is set in the config only");
    expect(ListBackendsInputSchema.safeParse({ config_path: "/etc/x", foo: 1 }).error?.issues[0]?.message).toBe('config_path is not accepted: the daemon reads its own config only; unknown key(s) "foo"');
  });
});
