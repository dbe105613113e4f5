/**
 * The scripted model on its own (no AI client needed, so it runs everywhere): for each vendor API, a request
 * offering a prefixed `plan` gets one call of it, the request carrying that call's result gets the closing text,
 * a request without plan gets the side answer, and an unknown path a 404; plus the name and schema rules the
 * client tests rely on.
 */
import { afterEach, describe, expect, it } from "vitest";
import { topLevelCombinators } from "./harness.ts";
import { anthropicMessages } from "./model/anthropic-messages.ts";
import { geminiGenerate } from "./model/gemini-generate.ts";
import { openaiChat } from "./model/openai-chat.ts";
import { openaiResponses } from "./model/openai-responses.ts";
import { DONE_TEXT, isHostgatePlan, SIDE_TEXT, startScriptedModel, type JsonObject, type ScriptedModel, type VendorApi } from "./model/scripted-model.ts";

const ARGS: JsonObject = { steps: [{ action: "WriteFile", params: { path: "/tmp/x", content: "hi\n" } }] };
const SCHEMA: JsonObject = { type: "object", properties: { steps: { type: "array" } } };

/** Per vendor: the path, a request offering `tool`, the same with the call's result, and how to read an answer. */
interface Case {
  vendor: VendorApi;
  path: string;
  offer(tool: string): object;
  withResult(tool: string, callId: string, text: string): object;
  /** [called tool, its arguments] or null, and the text, read from the (SSE) answer body. */
  read(body: string): { call: [string, unknown] | null; text: string };
}

const sseData = (body: string): JsonObject[] => body.split("\n").filter((l) => l.startsWith("data: ") && l !== "data: [DONE]").map((l) => JSON.parse(l.slice(6)) as JsonObject);

const CASES: Case[] = [
  {
    vendor: anthropicMessages,
    path: "/v1/messages",
    offer: (tool) => ({ model: "m", stream: true, tools: [{ name: "Read", input_schema: {} }, { name: tool, input_schema: SCHEMA }], messages: [{ role: "user", content: "go" }] }),
    withResult: (tool, id, text) => ({ model: "m", stream: true, tools: [{ name: tool, input_schema: SCHEMA }], messages: [{ role: "user", content: "go" }, { role: "assistant", content: [{ type: "tool_use", id, name: tool, input: ARGS }] }, { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: [{ type: "text", text }] }] }] }),
    read(body) {
      const events = sseData(body);
      const start = events.find((e) => e.type === "content_block_start")!.content_block as JsonObject;
      const delta = events.find((e) => e.type === "content_block_delta")!.delta as JsonObject;
      return start.type === "tool_use" ? { call: [start.name as string, JSON.parse(delta.partial_json as string)], text: "" } : { call: null, text: delta.text as string };
    },
  },
  {
    vendor: openaiResponses,
    path: "/v1/responses",
    offer: (tool) => ({ model: "m", stream: true, tools: [{ type: "function", name: "exec_command", parameters: {} }, { type: "namespace", name: tool.split(".")[0]!, tools: [{ type: "function", name: tool.split(".")[1]!, parameters: SCHEMA }] }], input: [] }),
    withResult: (tool, id, text) => ({ model: "m", stream: true, tools: [], input: [{ type: "function_call", call_id: id, name: tool, arguments: "{}" }, { type: "function_call_output", call_id: id, output: text }] }),
    read(body) {
      const item = sseData(body).find((e) => e.type === "response.output_item.done")!.item as JsonObject;
      if (item.type === "function_call") return { call: [`${item.namespace as string}.${item.name as string}`, JSON.parse(item.arguments as string)], text: "" };
      return { call: null, text: ((item.content as JsonObject[])[0]!.text as string) };
    },
  },
  {
    vendor: openaiChat,
    path: "/v1/chat/completions",
    offer: (tool) => ({ model: "m", stream: true, tools: [{ type: "function", function: { name: "bash", parameters: {} } }, { type: "function", function: { name: tool, parameters: SCHEMA } }], messages: [{ role: "user", content: "go" }] }),
    withResult: (tool, id, text) => ({ model: "m", stream: true, messages: [{ role: "assistant", tool_calls: [{ id, type: "function", function: { name: tool, arguments: "{}" } }] }, { role: "tool", tool_call_id: id, content: text }] }),
    read(body) {
      const delta = (sseData(body)[0]!.choices as JsonObject[])[0]!.delta as JsonObject;
      const calls = delta.tool_calls as JsonObject[] | undefined;
      if (calls) { const f = calls[0]!.function as JsonObject; return { call: [f.name as string, JSON.parse(f.arguments as string)], text: "" }; }
      return { call: null, text: delta.content as string };
    },
  },
  {
    vendor: geminiGenerate,
    path: "/v1beta/models/gemini-2.5-flash:streamGenerateContent",
    offer: (tool) => ({ contents: [{ role: "user", parts: [{ text: "go" }] }], tools: [{ functionDeclarations: [{ name: "read_file", parametersJsonSchema: {} }, { name: tool, parametersJsonSchema: SCHEMA }] }] }),
    withResult: (tool, id, text) => ({ contents: [{ role: "model", parts: [{ functionCall: { id, name: tool, args: ARGS } }] }, { role: "user", parts: [{ functionResponse: { id, name: tool, response: { output: text } } }] }] }),
    read(body) {
      const part = (((sseData(body)[0]!.candidates as JsonObject[])[0]!.content as JsonObject).parts as JsonObject[])[0]!;
      const fc = part.functionCall as JsonObject | undefined;
      return fc ? { call: [fc.name as string, fc.args], text: "" } : { call: null, text: part.text as string };
    },
  },
];

const TOOL_NAME: Record<string, string> = { "anthropic-messages": "mcp__hostgate__plan", "openai-responses": "mcp__hostgate.plan", "openai-chat-completions": "hostgate_plan", "gemini-generate-content": "mcp_hostgate_plan" };

let model: ScriptedModel | null = null;
afterEach(async () => { await model?.close(); model = null; });

async function post(path: string, body: object | string): Promise<{ status: number; text: string }> {
  const r = await fetch(`${model!.origin}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: typeof body === "string" ? body : JSON.stringify(body) });
  return { status: r.status, text: await r.text() };
}

describe.each(CASES)("scripted model: $vendor.name", (c) => {
  const tool = TOOL_NAME[c.vendor.name]!;

  it("offered plan → one call of it with the scripted arguments; its result → the closing text; recorded", async () => {
    model = await startScriptedModel({ vendor: c.vendor, planArgs: ARGS });
    const first = c.read((await post(c.path, c.offer(tool))).text);
    expect(first.call).toEqual([tool, ARGS]);
    const second = c.read((await post(c.path, c.withResult(tool, model.callId, "planned tx-123"))).text);
    expect(second).toEqual({ call: null, text: DONE_TEXT });
    expect(model.requests.map((q) => q.answered)).toEqual(["call", "done"]);
    expect(model.requests[0]!.planTool).toBe(tool);
    expect(model.requests[0]!.planSchema).toEqual(SCHEMA);
    expect(model.requests[0]!.toolNames).toHaveLength(2);
    expect(model.requests[1]!.toolResult).toContain("planned tx-123");
  });

  it("a request without hostgate's plan (a client's side request) → the side text, no call", async () => {
    model = await startScriptedModel({ vendor: c.vendor, planArgs: ARGS });
    const r = c.read((await post(c.path, c.offer("other_server_plan_command"))).text);
    expect(r).toEqual({ call: null, text: SIDE_TEXT });
    expect(model.requests[0]!.answered).toBe("side");
  });

  it("a path it does not serve, or a body that is not JSON → 404 naming the path, recorded", async () => {
    model = await startScriptedModel({ vendor: c.vendor, planArgs: ARGS });
    const r = await post("/v1/models", {});
    expect(r.status).toBe(404);
    expect(r.text).toContain("/v1/models");
    expect((await post(c.path, "not json")).status).toBe(404);
    expect(model.requests.map((q) => q.answered)).toEqual(["not_found", "not_found"]);
  });
});

describe("which offered tool is hostgate's plan", () => {
  it.each(["plan", "mcp__hostgate__plan", "hostgate_plan", "mcp_hostgate_plan", "mcp__hostgate.plan"])("%s is", (n) => { expect(isHostgatePlan(n)).toBe(true); });
  it.each(["plan_command", "mcp__hostgate__plan_command", "hostgate_skills_install_plan", "mcp__other__plan", "planner", "hostgate_history"])("%s is not", (n) => { expect(isHostgatePlan(n)).toBe(false); });
});

describe("top-level combinators in a forwarded schema", () => {
  it("names each of oneOf/anyOf/allOf at the top level, and ignores nested ones", () => {
    expect(topLevelCombinators({ type: "object", oneOf: [{ required: ["intent"] }, { required: ["steps"] }] })).toEqual(["oneOf"]);
    expect(topLevelCombinators({ anyOf: [], allOf: [] })).toEqual(["anyOf", "allOf"]);
    expect(topLevelCombinators({ type: "object", properties: { a: { anyOf: [{ type: "string" }, { type: "null" }] } } })).toEqual([]);
    expect(topLevelCombinators(null)).toEqual([]);
  });
});
