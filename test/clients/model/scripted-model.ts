/**
 * A scripted model: a loopback HTTP server that speaks one vendor's model API just enough for a real AI client
 * to run one turn against it, so the client harness (test/clients/*.test.ts) can drive Claude Code, Codex,
 * OpenCode and Gemini CLI without a real model. Its script, per request:
 * - the request offers hostgate's `plan` tool (under whatever prefix the client gives MCP tools) and carries no
 *   result of our call yet → answer with one call of that tool with {@link ScriptedModelOptions.planArgs};
 * - it carries the result of that call → answer with the text {@link DONE_TEXT} (the turn ends);
 * - anything else (a client's side request: a title, a quota probe, a summary) → the text {@link SIDE_TEXT}.
 * Every request is recorded (path, the tools offered, the schema forwarded for plan, the tool result seen) for
 * the tests' assertions. Each vendor's wire format is one small file beside this one (a {@link VendorApi}).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A JSON value as parsed from a request body. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
/** A JSON object. */
export type JsonObject = Record<string, Json>;

/** A tool as one request offered it to the model: its name and the parameter schema the client forwarded. */
export interface OfferedTool {
  name: string;
  schema: Json;
}

/** What the scripted model answers; `call` carries the arguments as an object (the vendor file encodes them). */
export type Answer = { kind: "call"; id: string; name: string; args: JsonObject } | { kind: "text"; text: string };

/** One vendor API: how to read the tools and the tool result out of a request, and how to write an answer. */
export interface VendorApi {
  /** Short name for messages ("anthropic-messages", "openai-responses", …). */
  name: string;
  /** Whether this request is a model turn this vendor file handles (by method and path). */
  handles(method: string, path: string): boolean;
  /** The tools the request offers, in order. */
  tools(body: JsonObject): OfferedTool[];
  /** The text of the result the request carries for the tool call `callId`, or null when it carries none. */
  toolResult(body: JsonObject, callId: string): string | null;
  /** Writes the answer (streamed when the request or the path asks for a stream). */
  respond(res: ServerResponse, body: JsonObject, path: string, answer: Answer): void;
}

/** One request the scripted model received. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  body: JsonObject | null;
  /** Names of the tools the request offered ([] when none or not a model turn). */
  toolNames: string[];
  /** The name under which hostgate's plan tool was offered, or null. */
  planTool: string | null;
  /** The schema the client forwarded for plan, or null. */
  planSchema: Json;
  /** The text of plan's result this request carried, or null. */
  toolResult: string | null;
  /** What the scripted model answered: "call", "done", "side", or "not_found" (a path no vendor file handles). */
  answered: "call" | "done" | "side" | "not_found";
}

/** Options of {@link startScriptedModel}. */
export interface ScriptedModelOptions {
  vendor: VendorApi;
  /** The arguments of the one plan call. */
  planArgs: JsonObject;
}

/** A running scripted model. */
export interface ScriptedModel {
  /** http://127.0.0.1:PORT (no trailing slash). */
  origin: string;
  /** Every request so far, in arrival order. */
  requests: RecordedRequest[];
  /** The id the plan call carries. */
  callId: string;
  close(): Promise<void>;
}

/** The text the model ends the turn with once plan's result arrived. */
export const DONE_TEXT = "The plan is waiting for your approval.";
/** The text of every side request's answer. */
export const SIDE_TEXT = "ok";

/**
 * Which offered tool is hostgate's `plan`: `plan` itself, or `plan` right after a prefix ending in the server's
 * name `hostgate` and separators (`mcp__hostgate__plan`, `hostgate_plan`, `mcp_hostgate_plan`). `plan_command`,
 * `skills_install_plan` and another server's `plan` do not match.
 */
export function isHostgatePlan(name: string): boolean {
  return /^(?:.*hostgate[^A-Za-z0-9]*)?plan$/.test(name);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => { resolve(Buffer.concat(chunks).toString("utf8")); });
    req.on("error", reject);
  });
}

/** Writes one Server-Sent Event (`event:` line only when `event` is given). */
export function sse(res: ServerResponse, data: Json, event?: string): void {
  res.write(`${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(data)}\n\n`);
}

/** Starts the headers of an SSE answer. */
export function startSse(res: ServerResponse): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
}

/** Writes a JSON answer. */
export function sendJson(res: ServerResponse, status: number, body: Json): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

/**
 * Starts the scripted model on 127.0.0.1 and an ephemeral port. A request body that is not JSON, or a path no
 * vendor file handles, is recorded and answered 404 with a JSON error (clients probe optional endpoints).
 */
export async function startScriptedModel(opts: ScriptedModelOptions): Promise<ScriptedModel> {
  const requests: RecordedRequest[] = [];
  const callId = `call_hostgate_plan_1`;
  const server: Server = createServer((req, res) => {
    void (async () => {
      const text = await readBody(req);
      const path = (req.url ?? "/").split("?")[0]!;
      let body: JsonObject | null = null;
      try {
        const parsed = JSON.parse(text) as Json;
        if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) body = parsed;
      } catch { /* not JSON: recorded with a null body */ }
      const rec: RecordedRequest = { method: req.method ?? "", path, headers: req.headers, body, toolNames: [], planTool: null, planSchema: null, toolResult: null, answered: "not_found" };
      requests.push(rec);
      const { vendor } = opts;
      if (body === null || !vendor.handles(rec.method, path)) {
        sendJson(res, 404, { error: { message: `the scripted model (${vendor.name}) does not serve ${rec.method} ${path}` } });
        return;
      }
      const tools = vendor.tools(body);
      rec.toolNames = tools.map((t) => t.name);
      const plan = tools.find((t) => isHostgatePlan(t.name));
      rec.planTool = plan?.name ?? null;
      rec.planSchema = plan?.schema ?? null;
      rec.toolResult = vendor.toolResult(body, callId);
      let answer: Answer;
      if (rec.toolResult !== null) {
        rec.answered = "done";
        answer = { kind: "text", text: DONE_TEXT };
      } else if (plan) {
        rec.answered = "call";
        answer = { kind: "call", id: callId, name: plan.name, args: opts.planArgs };
      } else {
        rec.answered = "side";
        answer = { kind: "text", text: SIDE_TEXT };
      }
      vendor.respond(res, body, path, answer);
    })().catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: { message: String(err) } });
      else res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    callId,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => { resolve(); });
    }),
  };
}
