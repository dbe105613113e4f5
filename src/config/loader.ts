import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { z } from "zod";
import { discoverConfig } from "./discover.ts";
import { ENV_VARS } from "./env.ts";
import { ConfigSchema, type Config } from "./schema.ts";
import { closest } from "../core/suggest.ts";

/** The system-wide configuration file (the last default location; see config/discover.ts). */
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

function formatIssues(error: z.ZodError, source: string, fromEnv: ReadonlyMap<string, string> = new Map()): string {
  const lines = error.issues.map((i) => {
    const dotted = i.path.join(".");
    const env = fromEnv.get(dotted);
    const where = `${dotted || "(root)"}${env ? ` (from ${env})` : ""}`;
    if (i.code === "unrecognized_keys") {
      const known = keysAt(ConfigSchema, i.path);
      const named = i.keys.map((k) => {
        const near = closest(k, known);
        return `${JSON.stringify(k)}${near === undefined ? "" : ` (did you mean ${JSON.stringify(near)}?)`}`;
      });
      return `  ${where}: unknown key(s) ${named.join(", ")}`;
    }
    return `  ${where}: ${i.message}`;
  });
  return `Invalid configuration in ${source}:\n${lines.join("\n")}\nSee docs/configuration.md for every key and its allowed values.`;
}

/** The keys the schema allows at `path` (object shapes through optional/default/nullable/pipe wrappers); [] where unknown. */
function keysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let node: unknown = schema;
  for (const step of [...path, null]) {
    for (let guard = 0; guard < 8; guard++) {
      const def = (node as { _zod?: { def?: { type?: string; innerType?: unknown; in?: unknown; shape?: Record<string, unknown> } } })._zod?.def;
      if (def?.type === "object") break;
      node = def?.innerType ?? def?.in;
      if (node === undefined) return [];
    }
    const shape = (node as { _zod: { def: { shape: Record<string, unknown> } } })._zod.def.shape;
    if (step === null) return Object.keys(shape);
    node = shape[String(step)];
    if (node === undefined) return [];
  }
  return [];
}

/** Reads one YAML file as a mapping; ConfigError naming the file otherwise. */
function readYamlMapping(path: string, missing: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new ConfigError(`Cannot read the configuration file ${path}: ${(err as NodeJS.ErrnoException).code === "ENOENT" ? "it does not exist" : (err as Error).message}. ${missing}`);
  }
  // yaml is loaded only when there is a file to parse (start-up time matters for stdio servers).
  const { parseDocument } = createRequire(import.meta.url)("yaml") as typeof import("yaml");
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: true });
  if (doc.errors.length > 0) throw new ConfigError(`${path} is not valid YAML:\n${doc.errors.map((e) => `  ${e.message}`).join("\n")}`);
  let raw: unknown;
  try {
    raw = doc.toJS({ maxAliasCount: 100 }) ?? {};
  } catch (err) {
    throw new ConfigError(`${path} cannot be read as configuration: ${(err as Error).message}`);
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new ConfigError(`${path} must hold a YAML mapping at the top level.`);
  return raw as Record<string, unknown>;
}

const isMapping = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Merges `over` into `base`: mappings merge key by key, anything else (lists included) replaces. */
export function mergeConfig(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    if (k === "__proto__" || k === "constructor" || k === "prototype") continue;
    out[k] = isMapping(v) && isMapping(out[k]) ? mergeConfig(out[k], v) : v;
  }
  return out;
}

/** Sets a dotted key in a raw config tree (creating mappings on the way). */
function setKey(raw: Record<string, unknown>, key: string, value: unknown): Record<string, unknown> {
  const [head, ...rest] = key.split(".");
  if (rest.length === 0) return { ...raw, [head!]: value };
  return { ...raw, [head!]: setKey(isMapping(raw[head!]) ? raw[head!] as Record<string, unknown> : {}, rest.join("."), value) };
}

/**
 * Loads the configuration with one precedence for every key: built-in defaults → file → drop-ins
 * (`config.d/*.yaml` beside the file, sorted by name) → environment (config/env.ts: HOSTGATE_HTTP_TOKEN →
 * server.token, HOSTGATE_SOCKET → daemon.socket, HOSTGATE_TOKEN → daemon.token, HOSTGATE_STATE_DIR →
 * state.dir; empty means unset) → flags. The file is found by config/discover.ts (--config,
 * $HOSTGATE_CONFIG, $XDG_CONFIG_HOME/hostgate/config.yaml, /etc/hostgate/config.yaml); an explicit one
 * must exist. `defaultPath` replaces the default locations (tests). Throws ConfigError (never exits) with
 * every problem listed, naming the environment variable behind a bad value.
 */
export function loadConfig(opts: { path?: string; env?: NodeJS.ProcessEnv; overrides?: ConfigOverrides; defaultPath?: string } = {}): { config: Config; source: string } {
  const env = opts.env ?? process.env;
  const found = discoverConfig({ flag: opts.path, env, ...(opts.defaultPath !== undefined ? { defaults: [opts.defaultPath] } : {}) });
  let raw: Record<string, unknown> = {};
  const sources: string[] = [];
  if (found.file !== null) {
    raw = readYamlMapping(found.file, "Pass an existing file to --config (or $HOSTGATE_CONFIG), or omit it to use the defaults.");
    sources.push(found.file);
  }
  for (const dropIn of found.dropIns) {
    raw = mergeConfig(raw, readYamlMapping(dropIn, "Remove or fix the drop-in."));
    sources.push(dropIn);
  }
  const fromEnv = new Map<string, string>();
  for (const v of ENV_VARS) {
    const value = env[v.name];
    if (v.key === undefined || value === undefined || value === "") continue;
    raw = setKey(raw, v.key, value);
    fromEnv.set(v.key, v.name);
  }
  const source = sources.length === 0 ? "built-in defaults" : sources.join(" + ");
  // Parsed once per process: zod's generated fast path (`new Function` per object schema) would cost more to
  // build than it saves here (≈ 8 ms of every start, issue 14).
  const parsed = ConfigSchema.safeParse(raw, { jitless: true });
  if (!parsed.success) throw new ConfigError(formatIssues(parsed.error, fromEnv.size > 0 ? `${source} and the environment` : source, fromEnv));
  const config = parsed.data;
  if (opts.overrides?.host !== undefined) config.server.host = opts.overrides.host;
  if (opts.overrides?.port !== undefined) config.server.port = opts.overrides.port;
  return { config, source };
}
