import { readFileSync } from "node:fs";
import type { z } from "zod";
import { wireJsonSchema } from "./json-schema.ts";
import type { ActionDescriptor } from "./protocol.ts";
import { VERSION } from "../version.ts";

/** A tool's two JSON Schemas as tools/list sends them (see json-schema.ts). */
export interface WireSchemas {
  input: Record<string, unknown>;
  /** Absent for a tool without an outputSchema. */
  output?: Record<string, unknown> | undefined;
}

/**
 * What `npm run build` computes once so that no process computes it at start (issue 14, cold start): the
 * descriptor of every catalogue action (with its wire JSON Schemas), the action names each distro family
 * offers, and the wire schemas of every fixed tool by name. Written to `dist/prebuilt.json` by
 * scripts/prebuild.ts from the same functions the sources use; test/build/prebuilt.test.ts checks it equals
 * them.
 */
export interface Prebuilt {
  /** The id of the build that wrote it: a table from another build is never used. */
  build_id: string;
  actions: Record<string, ActionDescriptor>;
  families: Record<string, string[]>;
  tools: Record<string, WireSchemas>;
}

/** Set by scripts/build.mjs (esbuild `define`) to a fresh id per build; undeclared when running the sources. */
declare const bundleBuildId: string;

/** Which hostgate build a process runs: the package version and the build id (`sources` when running the TypeScript sources). */
export interface BuildIdentity {
  version: string;
  id: string;
}

/**
 * This process's build, which the daemon states in `describe` and a front compares with its own: the id is
 * drawn afresh by every `npm run build` (scripts/build.mjs), so two builds of one version differ too.
 */
export function thisBuild(): BuildIdentity {
  return { version: VERSION, id: typeof bundleBuildId === "undefined" ? "sources" : bundleBuildId };
}

let loaded: Prebuilt | null | undefined;

/**
 * The build's table, read once from `prebuilt.json` beside the bundle; null when running from the sources
 * (there is none: everything is computed at first use) or when the file is another build's. A table that
 * exists but cannot be read or parsed throws, naming the file and the fix: a broken build must not pass
 * silently.
 */
export function prebuilt(): Prebuilt | null {
  if (loaded !== undefined) return loaded;
  if (typeof bundleBuildId === "undefined") return (loaded = null);
  const url = new URL("./prebuilt.json", import.meta.url);
  let text: string;
  try {
    text = readFileSync(url, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return (loaded = null);
    throw new Error(`Cannot read ${url.pathname}: ${(err as Error).message}. Rebuild with \`npm run build\`.`);
  }
  let table: Prebuilt;
  try {
    table = JSON.parse(text) as Prebuilt;
  } catch (err) {
    throw new Error(`${url.pathname} is not valid JSON (${(err as Error).message}). Rebuild with \`npm run build\`.`);
  }
  const isObject = (v: unknown): boolean => typeof v === "object" && v !== null && !Array.isArray(v);
  if (!isObject(table)) throw new Error(`${url.pathname} is not a table of descriptors (a JSON object was expected). Rebuild with \`npm run build\`.`);
  // A table from another build (a stale file beside a new bundle) is ignored, not trusted.
  if (table.build_id !== bundleBuildId) return (loaded = null);
  // This build's id on a table without its parts: cut short or edited, not one the build wrote.
  const missing = (["actions", "families", "tools"] as const).filter((k) => !isObject(table[k]));
  if (missing.length > 0) throw new Error(`${url.pathname} has this build's id but no ${missing.join(", ")}: it was cut short or edited. Rebuild with \`npm run build\`.`);
  return (loaded = table);
}

/**
 * A tool's two wire JSON Schemas, each from the build's table when it has it, else built from the zod schema
 * on first use (the first tools/list), never at import: start-up time matters. Memoised per tool.
 */
export function toolWireSchemas(name: string, input: z.ZodType, output: z.ZodType): { input: () => Record<string, unknown>; output: () => Record<string, unknown> } {
  let i: Record<string, unknown> | undefined;
  let o: Record<string, unknown> | undefined;
  return {
    input: () => (i ??= prebuilt()?.tools[name]?.input ?? wireJsonSchema(input, "input")),
    output: () => (o ??= prebuilt()?.tools[name]?.output ?? wireJsonSchema(output, "output")),
  };
}
