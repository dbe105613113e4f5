/**
 * The Gemini API (`POST /v1beta/models/<model>:generateContent`, `:streamGenerateContent?alt=sse`,
 * `:countTokens`), as Gemini CLI calls it through GOOGLE_GEMINI_BASE_URL: tools as `{functionDeclarations:
 * [{name, parameters | parametersJsonSchema}]}`, a tool result as a `functionResponse` part (matched by its id
 * when the client sends one, else by the plan tool's name), answers as a `GenerateContentResponse` (candidates
 * with a `functionCall` or a `text` part), streamed as SSE `data:` lines (source: ai.google.dev "Gemini API
 * reference: generateContent / streamGenerateContent").
 */
import type { ServerResponse } from "node:http";
import { isHostgatePlan, sendJson, startSse, type Answer, type Json, type JsonObject, type OfferedTool, type VendorApi } from "./scripted-model.ts";

const isObject = (v: Json | undefined): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/** Gemini generateContent / streamGenerateContent / countTokens. */
export const geminiGenerate: VendorApi = {
  name: "gemini-generate-content",
  handles: (method, path) => method === "POST" && /:(generateContent|streamGenerateContent|countTokens)$/.test(path),
  tools(body): OfferedTool[] {
    const tools = Array.isArray(body.tools) ? body.tools.filter(isObject) : [];
    return tools.flatMap((t) => (Array.isArray(t.functionDeclarations) ? t.functionDeclarations.filter(isObject) : []))
      .map((f) => ({ name: typeof f.name === "string" ? f.name : "", schema: f.parametersJsonSchema ?? f.parameters ?? null }));
  },
  toolResult(body, callId) {
    const contents = Array.isArray(body.contents) ? body.contents : [];
    for (const c of contents) {
      if (!isObject(c) || !Array.isArray(c.parts)) continue;
      for (const p of c.parts) {
        const fr = isObject(p) ? p.functionResponse : undefined;
        if (isObject(fr) && (fr.id === callId || (fr.id === undefined && typeof fr.name === "string" && isHostgatePlan(fr.name)))) return JSON.stringify(fr.response ?? null);
      }
    }
    return null;
  },
  respond(res: ServerResponse, body, path, answer: Answer) {
    if (path.endsWith(":countTokens")) {
      sendJson(res, 200, { totalTokens: 10 });
      return;
    }
    const part: JsonObject = answer.kind === "call" ? { functionCall: { id: answer.id, name: answer.name, args: answer.args } } : { text: answer.text };
    const response = {
      candidates: [{ content: { role: "model", parts: [part] }, finishReason: "STOP", index: 0 }],
      usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 10, totalTokenCount: 20 },
      modelVersion: typeof body.model === "string" ? body.model : "scripted",
    };
    if (!path.endsWith(":streamGenerateContent")) {
      sendJson(res, 200, response);
      return;
    }
    startSse(res);
    res.write(`data: ${JSON.stringify(response)}\n\n`);
    res.end();
  },
};
