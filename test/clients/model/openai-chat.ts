/**
 * The OpenAI Chat Completions API (`POST …/chat/completions`), as OpenCode calls it for a provider built on
 * `@ai-sdk/openai-compatible`: tools as `{type: "function", function: {name, parameters}}`, a tool result as a
 * `{role: "tool", tool_call_id, content}` message, answers as a `chat.completion` object or, with
 * `stream: true`, `chat.completion.chunk` SSE data lines ended by `data: [DONE]` (source:
 * platform.openai.com "Chat Completions streaming").
 */
import type { ServerResponse } from "node:http";
import { sendJson, startSse, type Answer, type Json, type JsonObject, type OfferedTool, type VendorApi } from "./scripted-model.ts";

const isObject = (v: Json | undefined): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

function contentText(content: Json | undefined): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((c) => (isObject(c) && typeof c.text === "string" ? c.text : JSON.stringify(c))).join("\n");
  return JSON.stringify(content ?? null);
}

/** OpenAI Chat Completions, streaming or not. */
export const openaiChat: VendorApi = {
  name: "openai-chat-completions",
  handles: (method, path) => method === "POST" && path.endsWith("/chat/completions"),
  tools(body): OfferedTool[] {
    const tools = Array.isArray(body.tools) ? body.tools : [];
    return tools.filter(isObject).map((t) => (isObject(t.function) ? t.function : t)).map((f) => ({ name: typeof f.name === "string" ? f.name : "", schema: f.parameters ?? null }));
  },
  toolResult(body, callId) {
    const messages = Array.isArray(body.messages) ? body.messages : [];
    for (const m of messages) {
      if (isObject(m) && m.role === "tool" && m.tool_call_id === callId) return contentText(m.content);
    }
    return null;
  },
  respond(res: ServerResponse, body, _path, answer: Answer) {
    const id = `chatcmpl_scripted_${Date.now()}`;
    const created = Math.floor(Date.now() / 1000);
    const model = typeof body.model === "string" ? body.model : "scripted";
    const call = answer.kind === "call" ? { id: answer.id, type: "function", function: { name: answer.name, arguments: JSON.stringify(answer.args) } } : null;
    const finish = call ? "tool_calls" : "stop";
    const usage = { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 };
    if (body.stream !== true) {
      const message: JsonObject = call ? { role: "assistant", content: null, tool_calls: [call] } : { role: "assistant", content: answer.kind === "text" ? answer.text : "" };
      sendJson(res, 200, { id, object: "chat.completion", created, model, choices: [{ index: 0, message, finish_reason: finish }], usage });
      return;
    }
    const chunk = (choice: JsonObject, extra: JsonObject = {}): void => {
      res.write(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [choice], ...extra })}\n\n`);
    };
    startSse(res);
    if (call) chunk({ index: 0, delta: { role: "assistant", content: null, tool_calls: [{ index: 0, ...call }] }, finish_reason: null });
    else chunk({ index: 0, delta: { role: "assistant", content: answer.kind === "text" ? answer.text : "" }, finish_reason: null });
    chunk({ index: 0, delta: {}, finish_reason: finish }, { usage });
    res.write("data: [DONE]\n\n");
    res.end();
  },
};
