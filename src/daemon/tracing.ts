import { NO_TRACER, type Tracer } from "../core/trace.ts";
import type { TracingSettings } from "../config/tracing.ts";

/**
 * This process's tracer (issue 25): {@link NO_TRACER} when tracing is off, so no OpenTelemetry module is loaded
 * (adapters/otel/tracer.ts is imported here and only here, on demand); else the SDK's, exporting to the settings'
 * endpoint. Used by `hostgate daemon` and by the fronts (`hostgate mcp`, `hostgate serve`), each process its own.
 */
export async function startTracing(settings: TracingSettings): Promise<Tracer> {
  if (!settings.enabled) return NO_TRACER;
  const { startOtelTracer } = await import("../adapters/otel/tracer.ts");
  return startOtelTracer(settings);
}
