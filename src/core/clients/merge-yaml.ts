import { parseDocument, stringify, type Document } from "yaml";
import { MANAGED_KEYS } from "./catalog.ts";
import { SERVER_NAME, jsonEqual, type Json } from "./entry.ts";
import { tooDeep } from "./nesting.ts";
import { mergedEntry, type MergeResult } from "./merge.ts";

/**
 * Merging our entry into a YAML client file (Goose's config.yaml, Continue's config.yaml) through yaml's
 * document API, so comments, key order and quoting of everything else survive. Two table shapes:
 * a mapping keyed by server name (`extensions.hostgate`, Goose) or a list whose items carry `name`
 * (`mcpServers: [{name: hostgate, …}]`, Continue). The result is parsed again and compared with what was
 * meant (our entry as wanted, everything else as it was); anything else is reported, not written.
 */

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** Where our entry is in a parsed file: its document path, what is there now, or why the file cannot take it. */
function locate(root: unknown, table: readonly string[], list: boolean): { path: (string | number)[] | null; existing: unknown; tableValue: unknown } | { error: string } {
  if (root !== null && root !== undefined && !isObj(root)) return { error: "the top level is not a mapping" };
  let cur: unknown = root ?? {};
  for (let i = 0; i < table.length; i++) {
    if (cur === null || cur === undefined) return { path: null, existing: undefined, tableValue: undefined };
    if (!isObj(cur)) return { error: `\`${table.slice(0, i).join(".")}\` is not a mapping` };
    cur = cur[table[i]!];
  }
  const where = table.join(".");
  if (cur === null || cur === undefined) return { path: null, existing: undefined, tableValue: cur };
  if (list) {
    if (!Array.isArray(cur)) return { error: `\`${where}\` is not a list` };
    const at = cur.flatMap((item, i) => (isObj(item) && item.name === SERVER_NAME ? [i] : []));
    if (at.length > 1) return { error: `\`${where}\` holds ${at.length} servers named ${SERVER_NAME}: keep one and run setup again` };
    if (at.length === 0) return { path: null, existing: undefined, tableValue: cur };
    return { path: [...table, at[0]!], existing: cur[at[0]!], tableValue: cur };
  }
  if (!isObj(cur)) return { error: `\`${where}\` is not a mapping` };
  const existing = cur[SERVER_NAME];
  if (existing !== undefined && !isObj(existing)) return { error: `\`${where}.${SERVER_NAME}\` is not a mapping` };
  return { path: existing === undefined ? null : [...table, SERVER_NAME], existing, tableValue: cur };
}

/** The parsed file without our entry (and without a table only our entry needed), to compare before and after. */
function withoutEntry(root: unknown, table: readonly string[], list: boolean): unknown {
  if (!isObj(root)) return root ?? {};
  const copy = structuredClone(root);
  let parent: Obj = copy;
  for (const k of table.slice(0, -1)) {
    if (!isObj(parent[k])) return copy;
    parent = parent[k];
  }
  const last = table[table.length - 1]!;
  const t = parent[last];
  // An empty key (`mcpServers:`) that our entry filled counts as absent before and after.
  if (t === null) Reflect.deleteProperty(parent, last);
  else if (list && Array.isArray(t)) {
    const rest = t.filter((item) => !(isObj(item) && item.name === SERVER_NAME));
    if (rest.length === 0) Reflect.deleteProperty(parent, last);
    else parent[last] = rest;
  } else if (isObj(t)) {
    Reflect.deleteProperty(t, SERVER_NAME);
    if (Object.keys(t).length === 0) Reflect.deleteProperty(parent, last);
  }
  return copy;
}

/**
 * The file's own layout, kept when the document is printed again: its indentation step, and whether list items
 * sit under their key (`key:\n  - a`, yaml's default) or at its column (`key:\n- a`, as Rust's serde_yaml
 * writes Goose's file).
 */
export function yamlLayout(text: string): { indent: number; indentSeq: boolean } {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== "" && !/^\s*#/.test(l));
  let indent = 0;
  let indentSeq = true;
  for (let i = 1; i < lines.length; i++) {
    const prev = /^(\s*)\S.*:\s*(#.*)?$/.exec(lines[i - 1]!);
    if (!prev) continue;
    const cur = /^(\s*)(- )?/.exec(lines[i]!)!;
    const step = cur[1]!.length - prev[1]!.length;
    if (cur[2] !== undefined && step === 0) indentSeq = false;
    else if (step > 0 && (indent === 0 || step < indent)) indent = step;
  }
  return { indent: indent || 2, indentSeq };
}

function nest(path: readonly string[], leaf: Json): Json {
  return path.reduceRight<Json>((inner, key) => ({ [key]: inner }), leaf);
}

/**
 * Merges `entry` into a YAML file's text (`null`: no file). `list`: the table is a list of named servers.
 * `skeleton`: keys a new file starts with. Comments and the rest of the file are kept; a second run with the
 * same entry changes nothing.
 */
export function mergeYaml(text: string | null, table: readonly string[], entry: Record<string, Json>, skeleton: Record<string, Json> = {}, list = false): MergeResult {
  const item: Record<string, Json> = list ? { name: SERVER_NAME, ...entry } : entry;
  const leaf: Json = list ? [item] : { [SERVER_NAME]: item };
  if (text === null || text.trim() === "") {
    return { status: "created", text: stringify({ ...skeleton, ...(nest(table, leaf) as Record<string, Json>) }, { lineWidth: 0 }) };
  }
  const deep = tooDeep(text, "yaml");
  if (deep !== null) return { status: "malformed", reason: deep };
  const doc: Document = parseDocument(text, { uniqueKeys: true });
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!;
    return { status: "malformed", reason: `not valid YAML: ${e.message.split("\n")[0]}` };
  }
  const root: unknown = doc.toJS({ maxAliasCount: 100 });
  const found = locate(root, table, list);
  if ("error" in found) return { status: "malformed", reason: found.error };
  const want = (list ? { name: SERVER_NAME, ...mergedEntry(found.existing, entry) } : mergedEntry(found.existing, entry));
  if (jsonEqual(found.existing, want)) return { status: "unchanged", text };
  if (found.path === null) {
    if (found.tableValue === null || found.tableValue === undefined) doc.setIn([...table], doc.createNode(leaf));
    else if (list) doc.addIn([...table], doc.createNode(item));
    else doc.setIn([...table, SERVER_NAME], doc.createNode(item));
  } else {
    const existing = found.existing as Obj;
    for (const key of MANAGED_KEYS) {
      const next = item[key];
      if (next === undefined && !Object.hasOwn(existing, key)) continue;
      if (next !== undefined && jsonEqual(existing[key], next)) continue;
      if (next === undefined) doc.deleteIn([...found.path, key]);
      else doc.setIn([...found.path, key], doc.createNode(next));
    }
    // Keys we write once (a timeout, a description) that the entry does not have yet.
    for (const [key, value] of Object.entries(item)) {
      if (!(MANAGED_KEYS as readonly string[]).includes(key) && !Object.hasOwn(existing, key)) doc.setIn([...found.path, key], doc.createNode(value));
    }
  }
  const out = doc.toString({ lineWidth: 0, ...yamlLayout(text) });
  // Check the edit did exactly what was meant: our entry as wanted, everything else as it was.
  const again = parseDocument(out, { uniqueKeys: true });
  const after: unknown = again.errors.length > 0 ? undefined : again.toJS({ maxAliasCount: 100 });
  const check = again.errors.length > 0 ? { error: "unparsable" } : locate(after, table, list);
  if ("error" in check || !jsonEqual(check.existing, want) || !jsonEqual(withoutEntry(after, table, list), withoutEntry(root, table, list))) {
    return { status: "malformed", reason: "the file could not be edited without touching other settings (anchors or aliases around the entry?); add the entry by hand (see --dry-run for it)" };
  }
  return { status: "updated", text: out };
}
