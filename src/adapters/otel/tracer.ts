import { context, ROOT_CONTEXT, SpanKind as OtelKind, SpanStatusCode, trace, type Context, type Span, type TextMapGetter, type TextMapSetter } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { errorTypeOf, type SpanHandle, type SpanKind, type TraceCarrier, type Tracer } from "../../core/trace.ts";
import { VERSION } from "../../version.ts";

const KINDS: Record<SpanKind, OtelKind> = { server: OtelKind.SERVER, client: OtelKind.CLIENT, internal: OtelKind.INTERNAL };

/** The W3C propagator, used explicitly (never the global one, which OTEL_PROPAGATORS could change). */
const W3C = new W3CTraceContextPropagator();

/** How long shutdown waits for the last export, in milliseconds: a stop never hangs on an unreachable collector. */
const SHUTDOWN_MS = 3000;

function handleOf(span: Span): SpanHandle {
  return {
    setAttributes: (a) => { span.setAttributes(a); },
    fail: (type, message) => {
      span.setAttribute("error.type", type);
      span.setStatus({ code: SpanStatusCode.ERROR, ...(message === undefined ? {} : { message }) });
    },
  };
}

function extract(carrier: TraceCarrier): Context {
  const getter: TextMapGetter<TraceCarrier> = {
    get: (c, key) => (key === "traceparent" ? c.traceparent : key === "tracestate" ? c.tracestate : undefined),
    keys: () => ["traceparent", "tracestate"],
  };
  return W3C.extract(ROOT_CONTEXT, carrier, getter);
}

const setter: TextMapSetter<Record<string, string>> = { set: (c, k, v) => { c[k] = v; } };

/**
 * A {@link Tracer} over the OpenTelemetry SDK for Node (sdk-trace-node 2.x: AsyncLocalStorage carries the active span
 * across awaits, so a use case's spans nest under the request's): one provider per process, resource
 * `service.name` = `service_name` and `service.version` = hostgate's version, spans batched (BatchSpanProcessor) to
 * an OTLP/HTTP JSON exporter POSTing to `endpoint`. Export failures are the SDK's to log (they never fail a
 * request). `shutdown` flushes, waiting at most 3 s.
 */
export function startOtelTracer(settings: { endpoint: string; service_name: string }): Tracer {
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ "service.name": settings.service_name, "service.version": VERSION }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: settings.endpoint }), { scheduledDelayMillis: 1000 })],
  });
  // The context manager (AsyncLocalStorage) and the W3C propagator, process-wide.
  provider.register({ propagator: W3C });
  const tracer = provider.getTracer("hostgate", VERSION);
  let stopped: Promise<void> | null = null;
  return {
    enabled: true,
    span: (name, opts, fn) => {
      const parent = opts.parent ? extract(opts.parent) : context.active();
      return tracer.startActiveSpan(name, { kind: KINDS[opts.kind ?? "internal"], ...(opts.attributes ? { attributes: opts.attributes } : {}) }, parent, async (span) => {
        try {
          return await fn(handleOf(span));
        } catch (err) {
          handleOf(span).fail(errorTypeOf(err), errorTypeOf(err));
          throw err;
        } finally {
          span.end();
        }
      });
    },
    carrier: () => {
      if (!trace.getSpan(context.active())) return undefined;
      const out: Record<string, string> = {};
      W3C.inject(context.active(), out, setter);
      return out.traceparent ? { traceparent: out.traceparent, ...(out.tracestate ? { tracestate: out.tracestate } : {}) } : undefined;
    },
    shutdown: () => (stopped ??= Promise.race([
      provider.shutdown().catch(() => undefined),
      new Promise<void>((resolve) => setTimeout(resolve, SHUTDOWN_MS).unref()),
    ])),
  };
}
