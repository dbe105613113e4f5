import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { z } from "zod";
import { ConfigSchema, type Config } from "./schema.ts";

/** Where the configuration is read from when no --config is given, if the file exists. */
export const DEFAULT_CONFIG_PATH = "/etc/hostgate/config.yaml";

/** A configuration problem; the CLI prints the message and exits 2 before anything starts. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

/** Values from flags, applied last. */
export interface ConfigOverrides {
  host?: string;
  port?: number;
}

function formatIssues(error: z.ZodError, source: string): string {
  const lines = error.issues.map((i) => {
    const where = i.path.join(".") || "(root)";
    if (i.code === "unrecognized_keys") return `  ${where}: unknown key(s) ${i.keys.map((k) => JSON.stringify(k)).join(", ")}`;
    return `  ${where}: ${i.message}`;
  });
  return `Invalid configuration in ${source}:\n${lines.join("\n")}\nSee docs/configuration.md for every key and its allowed values.`;
}

/**
 * Loads the configuration: built-in defaults → file → environment → flags. An explicit `path` must exist;
 * without one, DEFAULT_CONFIG_PATH is used only if present. Environment: HOSTGATE_HTTP_TOKEN sets
 * server.token. Throws ConfigError (never exits) with every problem listed.
 */
export function loadConfig(opts: { path?: string; env?: NodeJS.ProcessEnv; overrides?: ConfigOverrides; defaultPath?: string } = {}): { config: Config; source: string } {
  const env = opts.env ?? process.env;
  const defaultPath = opts.defaultPath ?? DEFAULT_CONFIG_PATH;
  let raw: unknown = {};
  let source = "built-in defaults";
  const path = opts.path ?? (existsSync(defaultPath) ? defaultPath : undefined);
  if (path !== undefined) {
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch (err) {
      throw new ConfigError(`Cannot read the configuration file ${path}: ${(err as NodeJS.ErrnoException).code === "ENOENT" ? "it does not exist" : (err as Error).message}. Pass an existing file to --config, or omit --config to use the defaults.`);
    }
    // yaml is loaded only when there is a file to parse (start-up time matters for stdio servers).
    const { parseDocument } = createRequire(import.meta.url)("yaml") as typeof import("yaml");
    const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: true });
    if (doc.errors.length > 0) throw new ConfigError(`${path} is not valid YAML:\n${doc.errors.map((e) => `  ${e.message}`).join("\n")}`);
    try {
      raw = doc.toJS({ maxAliasCount: 100 }) ?? {};
    } catch (err) {
      throw new ConfigError(`${path} cannot be read as configuration: ${(err as Error).message}`);
    }
    if (typeof raw !== "object" || Array.isArray(raw)) throw new ConfigError(`${path} must hold a YAML mapping at the top level.`);
    source = path;
  }
  const parsed = ConfigSchema.safeParse(raw);
  if (!parsed.success) throw new ConfigError(formatIssues(parsed.error, source));
  const config = parsed.data;
  if (env.HOSTGATE_HTTP_TOKEN !== undefined && env.HOSTGATE_HTTP_TOKEN !== "") {
    if (env.HOSTGATE_HTTP_TOKEN.length < 16) throw new ConfigError("HOSTGATE_HTTP_TOKEN must be at least 16 characters.");
    config.server.token = env.HOSTGATE_HTTP_TOKEN;
  }
  if (opts.overrides?.host !== undefined) config.server.host = opts.overrides.host;
  if (opts.overrides?.port !== undefined) config.server.port = opts.overrides.port;
  return { config, source };
}
