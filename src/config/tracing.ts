import type { Config } from "./schema.ts";

/** Which process exports: the MCP front (`hostgate mcp`, `hostgate serve`, with an embedded daemon inside) or `hostgate daemon`. */
export type TracingRole = "front" | "daemon";

/** Tracing settings of one process: off (with why, for the start notice), or where and as what to export. */
export type TracingSettings =
  | { enabled: false; why: string }
  | {
    enabled: true;
    /** The OTLP/HTTP traces URL spans are POSTed to (JSON). */
    endpoint: string;
    /** `service.name` of this process's resource. */
    service_name: string;
  };

/** OTLP/HTTP's default traces URL (OpenTelemetry "OTLP Exporter Configuration": http://localhost:4318 + /v1/traces). */
export const DEFAULT_TRACES_ENDPOINT = "http://localhost:4318/v1/traces";

/** The standard OpenTelemetry environment variables hostgate honours (docs/configuration.md lists them). */
export const OTEL_ENV = ["OTEL_SDK_DISABLED", "OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_SERVICE_NAME"] as const;

const set = (v: string | undefined): v is string => v !== undefined && v.trim() !== "";

function httpUrl(name: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new Error(`${name}=${JSON.stringify(value)} is not a URL: set it to an OTLP/HTTP endpoint such as http://127.0.0.1:4318 (or unset it to turn tracing off).`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new Error(`${name}=${JSON.stringify(value)}: hostgate exports OTLP over HTTP only; use an http:// or https:// URL (the collector's OTLP/HTTP port, 4318 by default).`);
  }
  return url.href;
}

/**
 * Decides whether this process exports traces, from the environment (OpenTelemetry's standard variables, which
 * win, as the SDK specification's "Environment Variable Specification" asks) and the `tracing` config key:
 * - `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none` → off.
 * - else on when `tracing.enabled` is true or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` / `OTEL_EXPORTER_OTLP_ENDPOINT` is set.
 * - endpoint: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as is; else `tracing.endpoint`; else `OTEL_EXPORTER_OTLP_ENDPOINT`
 *   + `/v1/traces` (the spec's per-signal path rule); else {@link DEFAULT_TRACES_ENDPOINT}.
 * - service name: `OTEL_SERVICE_NAME`, else `tracing.service_name`, else `hostgate-mcp` / `hostgate-daemon` by role.
 * Throws an Error saying what to set when a value cannot work: `OTEL_TRACES_EXPORTER` other than otlp/none (or a
 * list), `OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL=grpc` (only OTLP/HTTP is exported), a non-http(s) or unparsable URL.
 */
export function tracingSettings(config: Pick<Config, "tracing">, env: NodeJS.ProcessEnv, role: TracingRole): TracingSettings {
  if (set(env.OTEL_SDK_DISABLED) && env.OTEL_SDK_DISABLED.trim().toLowerCase() === "true") return { enabled: false, why: "OTEL_SDK_DISABLED=true" };
  const exporter = env.OTEL_TRACES_EXPORTER?.trim().toLowerCase();
  if (exporter === "none") return { enabled: false, why: "OTEL_TRACES_EXPORTER=none" };
  if (set(exporter) && exporter !== "otlp") {
    throw new Error(`OTEL_TRACES_EXPORTER=${JSON.stringify(env.OTEL_TRACES_EXPORTER)} is not supported: hostgate exports otlp (OTLP/HTTP) or none; set one of those or unset it.`);
  }
  for (const name of ["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"] as const) {
    const p = env[name]?.trim().toLowerCase();
    if (set(p) && p !== "http/json" && p !== "http/protobuf") {
      throw new Error(`${name}=${JSON.stringify(env[name])} is not supported: hostgate exports OTLP/HTTP with JSON bodies (any OTLP/HTTP receiver, port 4318, takes them); set http/json or unset it.`);
    }
  }
  const tracesEnv = set(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) ? httpUrl("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) : undefined;
  const baseEnv = set(env.OTEL_EXPORTER_OTLP_ENDPOINT) ? httpUrl("OTEL_EXPORTER_OTLP_ENDPOINT", env.OTEL_EXPORTER_OTLP_ENDPOINT) : undefined;
  if (!config.tracing.enabled && tracesEnv === undefined && baseEnv === undefined) return { enabled: false, why: "tracing.enabled is false and no OTEL_EXPORTER_OTLP_*ENDPOINT is set" };
  const endpoint = tracesEnv ?? config.tracing.endpoint ?? (baseEnv !== undefined ? `${baseEnv.replace(/\/+$/, "")}/v1/traces` : DEFAULT_TRACES_ENDPOINT);
  const serviceName = set(env.OTEL_SERVICE_NAME) ? env.OTEL_SERVICE_NAME.trim() : config.tracing.service_name ?? (role === "front" ? "hostgate-mcp" : "hostgate-daemon");
  return { enabled: true, endpoint, service_name: serviceName };
}
