import type { ErrorBody, QueryResult } from "../ipc/protocol.ts";
import type { ToolResult } from "./tool-spec.ts";

/** `_meta` keys hostgate sets on results. Reverse-DNS prefixed, as MCP asks of implementation keys. */
export const META_UNTRUSTED = "dev.hostgate/untrusted";
export const META_PROVENANCE = "dev.hostgate/provenance";
export const META_ERROR_CODE = "dev.hostgate/error_code";
/** Set when the data is simulated (the mock systemd backend), not read from this host. */
export const META_SIMULATED = "dev.hostgate/simulated";

/** The first text block of every simulated answer. */
export const SIMULATED_NOTICE = "SIMULATED: this answer comes from hostgate's mock systemd backend (config backend.type: mock), not from this host's systemd.";

/** Largest text a result may carry (DESIGN.md: an answer 1 MiB). */
export const ANSWER_CAP_BYTES = 1024 * 1024;

/**
 * An error the model can act on: `isError: true`, the stable code in the JSON text and in `_meta`, and the
 * daemon's structured `details` (a refusal's decision and reasons…) in the JSON text. `structured`, when given,
 * becomes structuredContent: a tool passes it only when it validates against its outputSchema (fixed.ts
 * `errorContent`); otherwise there is none, since most outputSchemas describe success only.
 */
export function errorResult(error: ErrorBody, structured?: Record<string, unknown>): ToolResult {
  const body = { error: { code: error.code, message: error.message, ...(error.hint ? { hint: error.hint } : {}), ...(error.details ? { details: error.details } : {}) } };
  return { content: [{ type: "text", text: JSON.stringify(body) }], ...(structured ? { structuredContent: structured } : {}), isError: true, _meta: { [META_ERROR_CODE]: error.code } };
}

/**
 * Shapes a daemon query answer as a tool result: `structuredContent` is the data, the text block mirrors
 * it as JSON for clients without structured output, and `_meta` marks host-derived data untrusted with
 * its provenance. An answer over the cap becomes an error that says how to narrow the request.
 */
export function queryToolResult(result: QueryResult): ToolResult {
  if (!result.ok) return errorResult(result.error);
  const { data, meta } = result.value;
  const text = JSON.stringify(data);
  if (Buffer.byteLength(text) > ANSWER_CAP_BYTES) {
    return errorResult({ code: "answer_too_large", message: `The answer is ${Buffer.byteLength(text)} bytes; the limit is 1 MiB.`, hint: "Narrow the request with a lower limit or a filter, or page with cursor." });
  }
  // Simulated data says so in the text a model reads first, not only in _meta (issue 14).
  const notice = meta.simulated ? [{ type: "text" as const, text: SIMULATED_NOTICE }] : [];
  return {
    content: [...notice, { type: "text", text }],
    structuredContent: data,
    _meta: { [META_UNTRUSTED]: meta.untrusted, [META_PROVENANCE]: meta, ...(meta.simulated ? { [META_SIMULATED]: true } : {}) },
  };
}
