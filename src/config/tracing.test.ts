/** config/tracing.ts: when a process exports traces, where to and as what (issue 25), and every refused setting. */
import { describe, expect, it } from "vitest";
import { ConfigSchema } from "./schema.ts";
import { DEFAULT_TRACES_ENDPOINT, tracingSettings } from "./tracing.ts";

const config = (tracing?: unknown) => ConfigSchema.parse(tracing === undefined ? {} : { tracing });

describe("tracingSettings", () => {
  it("is off by default: no tracing key, no OTEL_* variable", () => {
    expect(tracingSettings(config(), {}, "front")).toMatchObject({ enabled: false });
    expect(tracingSettings(config(), { OTEL_SERVICE_NAME: "x", OTEL_TRACES_EXPORTER: "otlp" }, "daemon")).toMatchObject({ enabled: false });
  });

  it("OTEL_EXPORTER_OTLP_ENDPOINT turns it on and gets /v1/traces appended (one slash); the default service name follows the role", () => {
    expect(tracingSettings(config(), { OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/" }, "front")).toEqual({ enabled: true, endpoint: "http://collector:4318/v1/traces", service_name: "hostgate-mcp" });
    expect(tracingSettings(config(), { OTEL_EXPORTER_OTLP_ENDPOINT: "https://c.example/otlp" }, "daemon")).toEqual({ enabled: true, endpoint: "https://c.example/otlp/v1/traces", service_name: "hostgate-daemon" });
  });

  it("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is used as is and wins over tracing.endpoint and the base endpoint", () => {
    const env = { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://a:1/custom", OTEL_EXPORTER_OTLP_ENDPOINT: "http://b:2" };
    expect(tracingSettings(config({ enabled: true, endpoint: "http://c:3/v1/traces" }), env, "front")).toMatchObject({ endpoint: "http://a:1/custom" });
  });

  it("tracing.enabled alone exports to tracing.endpoint, else to the OTLP default; OTEL_SERVICE_NAME wins over tracing.service_name", () => {
    expect(tracingSettings(config({ enabled: true }), {}, "front")).toEqual({ enabled: true, endpoint: DEFAULT_TRACES_ENDPOINT, service_name: "hostgate-mcp" });
    expect(tracingSettings(config({ enabled: true, endpoint: "http://c:3/v1/traces", service_name: "gate-a" }), {}, "front")).toEqual({ enabled: true, endpoint: "http://c:3/v1/traces", service_name: "gate-a" });
    expect(tracingSettings(config({ enabled: true, service_name: "gate-a" }), { OTEL_SERVICE_NAME: "gate-b" }, "front")).toMatchObject({ service_name: "gate-b" });
    // tracing.endpoint wins over the base variable (which only turns tracing on).
    expect(tracingSettings(config({ endpoint: "http://c:3/v1/traces" }), { OTEL_EXPORTER_OTLP_ENDPOINT: "http://b:2" }, "front")).toMatchObject({ endpoint: "http://c:3/v1/traces" });
  });

  it("OTEL_SDK_DISABLED=true and OTEL_TRACES_EXPORTER=none turn it off whatever else is set; empty variables count as unset", () => {
    const on = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://b:2" };
    expect(tracingSettings(config({ enabled: true }), { ...on, OTEL_SDK_DISABLED: "TRUE" }, "front")).toEqual({ enabled: false, why: "OTEL_SDK_DISABLED=true" });
    expect(tracingSettings(config({ enabled: true }), { ...on, OTEL_TRACES_EXPORTER: "none" }, "front")).toEqual({ enabled: false, why: "OTEL_TRACES_EXPORTER=none" });
    expect(tracingSettings(config(), { ...on, OTEL_SDK_DISABLED: "false" }, "front")).toMatchObject({ enabled: true });
    expect(tracingSettings(config(), { OTEL_EXPORTER_OTLP_ENDPOINT: "", OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: " " }, "front")).toMatchObject({ enabled: false });
  });

  it("refuses, saying what to set: another exporter, a grpc protocol, a non-HTTP or unparsable URL", () => {
    const on = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://b:2" };
    expect(() => tracingSettings(config(), { ...on, OTEL_TRACES_EXPORTER: "zipkin" }, "front")).toThrow(/OTEL_TRACES_EXPORTER="zipkin" is not supported: hostgate exports otlp \(OTLP\/HTTP\) or none/);
    expect(() => tracingSettings(config(), { ...on, OTEL_TRACES_EXPORTER: "otlp,console" }, "front")).toThrow(/not supported/);
    expect(() => tracingSettings(config(), { ...on, OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }, "front")).toThrow(/OTEL_EXPORTER_OTLP_PROTOCOL="grpc" is not supported: .*set http\/json or unset it/);
    expect(() => tracingSettings(config(), { ...on, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "grpc" }, "front")).toThrow(/OTEL_EXPORTER_OTLP_TRACES_PROTOCOL/);
    expect(tracingSettings(config(), { ...on, OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf" }, "front")).toMatchObject({ enabled: true });
    expect(() => tracingSettings(config(), { OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" }, "front")).toThrow(/exports OTLP over HTTP only; use an http:\/\/ or https:\/\/ URL/);
    expect(() => tracingSettings(config(), { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "not a url" }, "front")).toThrow(/OTEL_EXPORTER_OTLP_TRACES_ENDPOINT="not a url" is not a URL: set it to an OTLP\/HTTP endpoint/);
  });

  it("the config key is strict: an unknown key or a non-HTTP endpoint is a config error", () => {
    expect(() => config({ enabled: true, exporter: "zipkin" })).toThrow(/exporter/);
    expect(() => config({ endpoint: "grpc://c:4317" })).toThrow();
  });
});
