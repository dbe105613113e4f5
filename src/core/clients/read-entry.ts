import { parse, type ParseError } from "jsonc-parser";
import { parse as parseToml } from "smol-toml";
import { parseDocument } from "yaml";
import type { ClientDef } from "./catalog.ts";
import { SERVER_NAME } from "./entry.ts";
import { tooDeep } from "./nesting.ts";

/** How a configured entry starts or reaches hostgate, normalised across client shapes (for doctor). */
export type EntryLaunch =
  | { kind: "stdio"; command: string; args: string[]; env: Record<string, string> }
  | { kind: "http"; url: string; headers: Record<string, string> };

/** What a client file says about our entry. */
export type EntryFinding =
  | { state: "no_file" }
  | { state: "malformed"; reason: string }
  | { state: "absent" }
  | { state: "unusable"; reason: string }
  | { state: "present"; launch: EntryLaunch };

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === "string");
const stringMap = (v: unknown): Record<string, string> => (isObj(v) ? Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === "string")) : {});

/** Finds and normalises the hostgate entry in a client file's text (null: the file does not exist). */
export function readEntry(def: ClientDef, text: string | null): EntryFinding {
  if (text === null) return { state: "no_file" };
  const deep = tooDeep(text, def.format);
  if (deep !== null) return { state: "malformed", reason: deep };
  let root: unknown;
  if (def.format === "toml") {
    try { root = parseToml(text); } catch (err) { return { state: "malformed", reason: `not valid TOML: ${(err as Error).message.split("\n")[0]}` }; }
  } else if (def.format === "yaml") {
    const doc = parseDocument(text, { uniqueKeys: true });
    if (doc.errors.length > 0) return { state: "malformed", reason: `not valid YAML: ${doc.errors[0]!.message.split("\n")[0]}` };
    root = doc.toJS({ maxAliasCount: 100 });
  } else {
    const errors: ParseError[] = [];
    root = parse(text, errors, { allowTrailingComma: true });
    if (errors.length > 0) return { state: "malformed", reason: "not valid JSON" };
  }
  let cur: unknown = root;
  for (const k of def.table) cur = isObj(cur) ? cur[k] : undefined;
  const e = def.list === true
    ? (Array.isArray(cur) ? (cur as unknown[]).find((item) => isObj(item) && item.name === SERVER_NAME) : undefined)
    : (isObj(cur) ? cur[SERVER_NAME] : undefined);
  if (e === undefined) return { state: "absent" };
  if (!isObj(e)) return { state: "unusable", reason: "the entry is not an object" };
  if (def.id === "goose") {
    // Goose: `uri` for Streamable HTTP, `cmd`/`envs` for stdio (ExtensionConfig).
    if (typeof e.uri === "string") return { state: "present", launch: { kind: "http", url: e.uri, headers: stringMap(e.headers) } };
    if (typeof e.cmd !== "string") return { state: "unusable", reason: "the extension has neither `cmd` nor `uri`" };
    if (e.args !== undefined && !strings(e.args)) return { state: "unusable", reason: "`args` is not a list of strings" };
    return { state: "present", launch: { kind: "stdio", command: e.cmd, args: (e.args) ?? [], env: stringMap(e.envs) } };
  }
  const headersOf = def.id === "codex" ? e.http_headers : def.id === "continue" ? (isObj(e.requestOptions) ? e.requestOptions.headers : undefined) : e.headers;
  if (typeof e.url === "string") return { state: "present", launch: { kind: "http", url: e.url, headers: stringMap(headersOf) } };
  if (def.id === "opencode") {
    if (!strings(e.command) || e.command.length === 0) return { state: "unusable", reason: "`command` is not an array of strings" };
    return { state: "present", launch: { kind: "stdio", command: e.command[0]!, args: e.command.slice(1), env: stringMap(e.environment) } };
  }
  if (typeof e.command !== "string") return { state: "unusable", reason: "the entry has neither `command` nor `url`" };
  if (e.args !== undefined && !strings(e.args)) return { state: "unusable", reason: "`args` is not an array of strings" };
  return { state: "present", launch: { kind: "stdio", command: e.command, args: (e.args) ?? [], env: stringMap(e.env) } };
}
