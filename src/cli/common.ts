import { ConfigError, loadConfig, type ConfigOverrides } from "../config/loader.ts";
import type { Config } from "../config/schema.ts";
import { tracingSettings, type TracingRole } from "../config/tracing.ts";
import { NO_TRACER, type Tracer } from "../core/trace.ts";

/** Exit codes shared by every subcommand. 2 = bad input or configuration (nothing was started). */
export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

/** Writes one line to stderr; stdout is reserved for protocol output (JSON-RPC in stdio mode). */
export function log(line: string): void {
  process.stderr.write(`hostgate: ${line}\n`);
}

/** Loads the configuration or prints why not and exits 2 before anything starts. */
export function loadConfigOrExit(path: string | undefined, overrides: ConfigOverrides = {}): Config {
  try {
    return loadConfig({ ...(path === undefined ? {} : { path }), overrides }).config;
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`hostgate: ${err.message}\n`);
      process.exit(EXIT.usage);
    }
    throw err;
  }
}

/**
 * This process's tracer (issue 25; config/tracing.ts decides from OTEL_* and `tracing`): off → {@link NO_TRACER}, and
 * no OpenTelemetry module is loaded; on → one line on stderr says where spans go. A setting that cannot work
 * (OTEL_TRACES_EXPORTER=zipkin, a grpc protocol, a bad URL) prints why and exits 2 before anything starts.
 */
export async function startTracingOrExit(config: Config, role: TracingRole): Promise<Tracer> {
  let settings;
  try {
    settings = tracingSettings(config, process.env, role);
  } catch (err) {
    log((err as Error).message);
    process.exit(EXIT.usage);
  }
  if (!settings.enabled) return NO_TRACER;
  const url = new URL(settings.endpoint);
  log(`tracing: OpenTelemetry spans to ${url.origin}${url.pathname} as ${settings.service_name}`);
  const { startTracing } = await import("../daemon/tracing.ts");
  return startTracing(settings);
}

/** Parses a TCP port flag, exiting 2 with a clear message on anything but 0–65535. */
export function parsePort(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) {
    process.stderr.write(`hostgate: --port must be an integer from 0 to 65535, got ${JSON.stringify(value)}.\n`);
    process.exit(EXIT.usage);
  }
  return n;
}

/**
 * The command line this process was started with, as a user would retype it: `hostgate` and the arguments after
 * the launcher, each shell-quoted when it holds anything but safe characters (`hostgate approve 3f2a…`). Advice
 * that says "run it with sudo" repeats it (issue 25).
 */
export function commandLine(argv: readonly string[] = process.argv): string {
  const quote = (a: string): string => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replaceAll("'", "'\\''")}'`);
  return ["hostgate", ...argv.slice(2).map(quote)].join(" ");
}
