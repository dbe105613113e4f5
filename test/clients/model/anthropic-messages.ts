/**
 * The Anthropic Messages API (`POST /v1/messages`), as Claude Code calls it through ANTHROPIC_BASE_URL:
 * tools as `{name, input_schema}`, a tool result as a `tool_result` block in a user message, answers as a
 * `message` object or, with `stream: true`, the SSE events message_start, content_block_start/_delta/_stop,
 * message_delta (stop_reason), message_stop (source: docs.anthropic.com "Streaming Messages").
 */
import type { ServerResponse } from "node:http";
import { sendJson, sse, startSse, type Answer, type Json, type JsonObject, type OfferedTool, type VendorApi } from "./scripted-model.ts";

const isObject = (v: Json | undefined): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

function resultText(content: Json | undefined): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((c) => (isObject(c) && typeof c.text === "string" ? c.text : JSON.stringify(c))).join("\n");
  return JSON.stringify(content ?? null);
}

/** Anthropic Messages, streaming or not. */
export const anthropicMessages: VendorApi = {
  name: "anthropic-messages",
  handles: (method, path) => method === "POST" && path.endsWith("/v1/messages"),
  tools(body): OfferedTool[] {
    const tools = Array.isArray(body.tools) ? body.tools : [];
    return tools.filter(isObject).map((t) => ({ name: typeof t.name === "string" ? t.name : "", schema: t.input_schema ?? null }));
  },
  toolResult(body, callId) {
    const messages = Array.isArray(body.messages) ? body.messages : [];
    for (const m of messages) {
      if (!isObject(m) || !Array.isArray(m.content)) continue;
      for (const block of m.content) {
        if (isObject(block) && block.type === "tool_result" && block.tool_use_id === callId) return resultText(block.content);
      }
    }
    return null;
  },
  respond(res: ServerResponse, body, _path, answer: Answer) {
    const model = typeof body.model === "string" ? body.model : "scripted";
    const block: JsonObject = answer.kind === "call" ? { type: "tool_use", id: answer.id, name: answer.name, input: answer.args } : { type: "text", text: answer.text };
    const stopReason = answer.kind === "call" ? "tool_use" : "end_turn";
    const usage = { input_tokens: 10, output_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    const message = { id: `msg_scripted_${Date.now()}`, type: "message", role: "assistant", model, content: [block], stop_reason: stopReason, stop_sequence: null, usage };
    if (body.stream !== true) {
      sendJson(res, 200, message);
      return;
    }
    startSse(res);
    sse(res, { type: "message_start", message: { ...message, content: [], stop_reason: null } }, "message_start");
    if (answer.kind === "call") {
      sse(res, { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: answer.id, name: answer.name, input: {} } }, "content_block_start");
      sse(res, { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: JSON.stringify(answer.args) } }, "content_block_delta");
    } else {
      sse(res, { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }, "content_block_start");
      sse(res, { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: answer.text } }, "content_block_delta");
    }
    sse(res, { type: "content_block_stop", index: 0 }, "content_block_stop");
    sse(res, { type: "message_delta", delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 10 } }, "message_delta");
    sse(res, { type: "message_stop" }, "message_stop");
    res.end();
  },
};
