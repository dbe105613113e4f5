/**
 * Tracing as the rest of hostgate sees it (issue 25): a small interface the MCP front, the IPC dispatcher and the
 * daemon's use cases program against, a tracer that does nothing (the default: tracing is off and no OpenTelemetry
 * module is loaded), and the W3C Trace Context checks for what a client sends in `_meta`. The OpenTelemetry SDK
 * behind the interface is adapters/otel/tracer.ts, loaded only when tracing is on (daemon/tracing.ts).
 *
 * Attributes never carry a secret, a command line, file contents or a receipt: callers pass names, codes, counts
 * and decisions only (docs/tracing.md lists them).
 */

/**
 * W3C Trace Context (Level 1, https://www.w3.org/TR/trace-context/) as carried in an MCP request's
 * `params._meta` (OpenTelemetry MCP semantic conventions, "Context propagation"; SEP-414) and over the daemon
 * socket (ipc/wire.ts `trace`).
 */
export interface TraceCarrier {
  /** `version-trace_id-parent_id-flags`, lowercase hex, e.g. `00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01`. */
  traceparent: string;
  /** Vendor entries, e.g. `rojo=00f067aa0ba902b7`; at most {@link MAX_TRACESTATE} characters. */
  tracestate?: string | undefined;
}

/** Longest `tracestate` kept (W3C Trace Context §3.3.1.5: 32 entries; 512 characters is what vendors are asked to propagate). */
export const MAX_TRACESTATE = 512;

/** Span kinds hostgate uses (OpenTelemetry's SERVER, CLIENT, INTERNAL). */
export type SpanKind = "server" | "client" | "internal";

/** Attribute values: plain scalars only (names, codes, counts, decisions). */
export type SpanAttributes = Record<string, string | number | boolean>;

/** The span a {@link Tracer.span} callback runs in. */
export interface SpanHandle {
  setAttributes(attributes: SpanAttributes): void;
  /**
   * Marks the span failed: `error.type` = `type` (a stable low-cardinality code such as `refused`, `tool_error`,
   * `-32602`) and status ERROR with `message` as its description (pass a code, never free text holding input).
   */
  fail(type: string, message?: string): void;
}

/** Options of one span. `parent`: a remote parent (a client's `_meta`, the IPC request); else the active span, if any. */
export interface SpanOptions {
  kind?: SpanKind;
  attributes?: SpanAttributes;
  parent?: TraceCarrier | undefined;
}

/**
 * Starts spans and propagates their context. {@link NO_TRACER} when tracing is off.
 */
export interface Tracer {
  /** False for {@link NO_TRACER}: callers may skip building attributes. */
  readonly enabled: boolean;
  /**
   * Runs `fn` in a new span that is the active span for everything `fn` awaits (spans started there are its
   * children), and ends it when `fn` settles. A throw marks the span failed (`error.type`: the error's `code`
   * when it has a string one, else its class name) and is rethrown.
   */
  span<T>(name: string, opts: SpanOptions, fn: (span: SpanHandle) => Promise<T>): Promise<T>;
  /** The active span's context as W3C fields, to send along (the IPC request); undefined when there is none. */
  carrier(): TraceCarrier | undefined;
  /** Exports what is buffered and stops; later spans are dropped. Resolves even when the collector is unreachable. */
  shutdown(): Promise<void>;
}

const NO_SPAN: SpanHandle = { setAttributes: () => undefined, fail: () => undefined };

/** The tracer of a process with tracing off: runs the callbacks, records nothing, loads nothing. */
export const NO_TRACER: Tracer = {
  enabled: false,
  span: (_name, _opts, fn) => fn(NO_SPAN),
  carrier: () => undefined,
  shutdown: () => Promise.resolve(),
};

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
/** tracestate: printable ASCII without a comma-free restriction check per entry; only length and charset here. */
const TRACESTATE = /^[\x20-\x7e]*$/;

/**
 * The W3C trace context of a request's `_meta` (or an IPC request's `trace`), or undefined when there is none or it
 * is malformed. Per W3C Trace Context §3.2.2–§3.2.4 a receiver that cannot parse `traceparent` starts a new trace
 * instead of failing the request: version `ff`, an all-zero trace or parent id, upper-case hex, or extra fields on
 * version 00 are ignored, so a bad value never fails a tool call. A `tracestate` longer than
 * {@link MAX_TRACESTATE} characters or with non-printable characters is dropped (the traceparent is kept).
 */
export function traceCarrierOf(meta: unknown): TraceCarrier | undefined {
  if (typeof meta !== "object" || meta === null) return undefined;
  const { traceparent, tracestate } = meta as { traceparent?: unknown; tracestate?: unknown };
  if (typeof traceparent !== "string" || traceparent.length > 128) return undefined;
  const m = TRACEPARENT.exec(traceparent);
  if (!m) return undefined;
  const [, version, traceId, parentId, , rest] = m;
  if (version === "ff" || (version === "00" && rest !== undefined)) return undefined;
  if (/^0+$/.test(traceId!) || /^0+$/.test(parentId!)) return undefined;
  const state = typeof tracestate === "string" && tracestate.length <= MAX_TRACESTATE && TRACESTATE.test(tracestate) && tracestate.trim() !== "" ? tracestate : undefined;
  return { traceparent: traceparent.slice(0, 55), ...(state === undefined ? {} : { tracestate: state }) };
}

/** The `error.type` of a thrown value: its string `code` (HostgateError), else its class name, else `Error`. */
export function errorTypeOf(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === "string" && /^[a-z][a-z0-9_]{0,63}$/.test(code)) return code;
  const name = (err as { constructor?: { name?: unknown } } | null)?.constructor?.name;
  return typeof name === "string" && /^[A-Za-z][A-Za-z0-9_]{0,63}$/.test(name) ? name : "Error";
}
