/**
 * The OpenAI Responses API (`POST …/responses`, streamed), as Codex calls it for a `model_providers` entry with
 * `wire_api = "responses"`: tools as `{type: "function", name, parameters}` (a `namespace` entry groups tools
 * under a name: recorded here as `<namespace>.<name>`, Codex 0.171 puts MCP tools in `mcp__<server>`), a tool result as a `function_call_output` input item, answers as the SSE events
 * response.created, response.output_item.added/done (a `function_call` or a `message` item) and
 * response.completed (source: platform.openai.com "Streaming API responses").
 */
import type { ServerResponse } from "node:http";
import { sendJson, sse, startSse, type Answer, type Json, type JsonObject, type OfferedTool, type VendorApi } from "./scripted-model.ts";

const isObject = (v: Json | undefined): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

function flatten(tools: Json[], prefix: string): OfferedTool[] {
  const out: OfferedTool[] = [];
  for (const t of tools.filter(isObject)) {
    const name = typeof t.name === "string" ? t.name : "";
    if (Array.isArray(t.tools)) out.push(...flatten(t.tools, `${prefix}${name}.`));
    else if (name !== "") out.push({ name: `${prefix}${name}`, schema: t.parameters ?? null });
  }
  return out;
}

function outputText(output: Json | undefined): string {
  if (typeof output === "string") return output;
  if (Array.isArray(output)) return output.map((c) => (isObject(c) && typeof c.text === "string" ? c.text : JSON.stringify(c))).join("\n");
  return JSON.stringify(output ?? null);
}

/** The name and namespace a call goes back under: a namespaced tool is called by its own name in its namespace. */
function callTarget(body: JsonObject, fullName: string): { name: string; namespace?: string } {
  const tools = Array.isArray(body.tools) ? body.tools.filter(isObject) : [];
  for (const t of tools) {
    if (Array.isArray(t.tools) && typeof t.name === "string" && fullName.startsWith(`${t.name}.`)) return { name: fullName.slice(t.name.length + 1), namespace: t.name };
  }
  return { name: fullName };
}

/** OpenAI Responses, streamed (Codex always asks for a stream). */
export const openaiResponses: VendorApi = {
  name: "openai-responses",
  handles: (method, path) => method === "POST" && path.endsWith("/responses"),
  tools: (body) => flatten(Array.isArray(body.tools) ? body.tools : [], ""),
  toolResult(body, callId) {
    const input = Array.isArray(body.input) ? body.input : [];
    for (const item of input) {
      if (isObject(item) && item.type === "function_call_output" && item.call_id === callId) return outputText(item.output);
    }
    return null;
  },
  respond(res: ServerResponse, body, _path, answer: Answer) {
    const id = `resp_scripted_${Date.now()}`;
    const model = typeof body.model === "string" ? body.model : "scripted";
    const item: JsonObject = answer.kind === "call"
      ? { type: "function_call", id: `fc_${answer.id}`, call_id: answer.id, arguments: JSON.stringify(answer.args), status: "completed", ...callTarget(body, answer.name) }
      : { type: "message", id: `msg_${id}`, role: "assistant", status: "completed", content: [{ type: "output_text", text: answer.text, annotations: [] }] };
    const usage = { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 10, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 20 };
    const response = { id, object: "response", created_at: Math.floor(Date.now() / 1000), model, status: "completed", output: [item], usage };
    if (body.stream !== true) {
      sendJson(res, 200, response);
      return;
    }
    startSse(res);
    sse(res, { type: "response.created", sequence_number: 0, response: { ...response, status: "in_progress", output: [] } }, "response.created");
    sse(res, { type: "response.output_item.added", sequence_number: 1, output_index: 0, item: { ...item, status: "in_progress" } }, "response.output_item.added");
    if (answer.kind === "text") sse(res, { type: "response.output_text.delta", sequence_number: 2, item_id: item.id as string, output_index: 0, content_index: 0, delta: answer.text }, "response.output_text.delta");
    sse(res, { type: "response.output_item.done", sequence_number: 3, output_index: 0, item }, "response.output_item.done");
    sse(res, { type: "response.completed", sequence_number: 4, response }, "response.completed");
    res.end();
  },
};
