import { applyEdits, modify, parse, printParseErrorCode, type FormattingOptions, type ParseError } from "jsonc-parser";
import { parse as parseToml, stringify as stringifyToml } from "smol-toml";
import { MANAGED_KEYS } from "./catalog.ts";
import { duplicateOnPath } from "./duplicates.ts";
import { tooDeep } from "./nesting.ts";
import { SERVER_NAME, jsonEqual, type Json } from "./entry.ts";

/**
 * Merging our entry into a client's existing file without clobbering anything: other servers and keys stay,
 * comments and formatting survive (JSONC edits through jsonc-parser's edit API; TOML by replacing only our
 * table's text, checked by parsing the result), and a second run with the same entry changes nothing.
 */

/** The outcome for one file. `malformed` files are reported and left untouched. */
export type MergeResult =
  | { status: "created" | "updated" | "unchanged"; text: string }
  | { status: "malformed"; reason: string };

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** Our entry as it will be after the merge: the keys a user added to it kept, the managed keys ours. */
export function mergedEntry(existing: unknown, entry: Record<string, Json>): Record<string, unknown> {
  const kept: Obj = {};
  if (isObj(existing)) for (const [k, v] of Object.entries(existing)) if (!(MANAGED_KEYS as readonly string[]).includes(k)) kept[k] = v;
  return { ...entry, ...kept };
}

function at(root: Obj, path: readonly string[]): { value: unknown; where: string } | { error: string } {
  let cur: unknown = root;
  for (let i = 0; i < path.length; i++) {
    if (!isObj(cur)) return { error: `\`${path.slice(0, i).join(".")}\` is not an object` };
    cur = cur[path[i]!];
  }
  return { value: cur, where: path.join(".") };
}

function withoutEntry(root: Obj, table: readonly string[]): Obj {
  const copy = structuredClone(root);
  const t = at(copy, table);
  if ("value" in t && isObj(t.value)) Reflect.deleteProperty(t.value, SERVER_NAME);
  // A table that only our entry needed (created by the merge) does not count as a change to others.
  for (let depth = table.length; depth > 0; depth--) {
    const parent = at(copy, table.slice(0, depth - 1));
    if (!("value" in parent) || !isObj(parent.value)) break;
    const child = parent.value[table[depth - 1]!];
    if (isObj(child) && Object.keys(child).length === 0) Reflect.deleteProperty(parent.value, table[depth - 1]!);
    else break;
  }
  return copy;
}

/** Finds where our entry goes and what is there now, or why the file cannot take it. */
function locate(root: unknown, table: readonly string[]): { existing: unknown } | { error: string } {
  if (!isObj(root)) return { error: "the top level is not an object" };
  const t = at(root, table);
  if ("error" in t) return t;
  if (t.value !== undefined && !isObj(t.value)) return { error: `\`${t.where}\` is not an object` };
  const existing = isObj(t.value) ? t.value[SERVER_NAME] : undefined;
  if (existing !== undefined && !isObj(existing)) return { error: `\`${t.where}.${SERVER_NAME}\` is not an object` };
  return { existing };
}

function formatting(text: string): FormattingOptions {
  const indent = /^([ \t]+)\S/m.exec(text)?.[1] ?? "  ";
  return { insertSpaces: !indent.startsWith("\t"), tabSize: indent.startsWith("\t") ? 1 : indent.length, eol: text.includes("\r\n") ? "\r\n" : "\n" };
}

function nest(path: readonly string[], leaf: Json): Json {
  return path.reduceRight<Json>((inner, key) => ({ [key]: inner }), leaf);
}

/**
 * Merges `entry` as `<table>.hostgate` into a JSON or JSONC file's text (`null`: the file does not exist).
 * Comments, trailing commas, order and indentation of everything else are kept.
 */
export function mergeJson(text: string | null, table: readonly string[], entry: Record<string, Json>, skeleton: Record<string, Json> = {}): MergeResult {
  if (text === null || text.trim() === "") {
    const doc = { ...skeleton, ...(nest(table, { [SERVER_NAME]: entry }) as Record<string, Json>) };
    return { status: "created", text: `${JSON.stringify(doc, null, 2)}\n` };
  }
  const deep = tooDeep(text, "json");
  if (deep !== null) return { status: "malformed", reason: deep };
  const errors: ParseError[] = [];
  const root: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0) {
    const e = errors[0]!;
    const line = text.slice(0, e.offset).split("\n").length;
    return { status: "malformed", reason: `not valid JSON: ${printParseErrorCode(e.error)} at line ${line}` };
  }
  const dup = duplicateOnPath(text, [...table, SERVER_NAME]);
  if (dup !== null) {
    return { status: "malformed", reason: `"${dup.key}" appears more than once in ${dup.where}: readers keep only the last one, so an edit could land where nobody reads it; merge the occurrences by hand and run setup again` };
  }
  const found = locate(root, table);
  if ("error" in found) return { status: "malformed", reason: found.error };
  const want = mergedEntry(found.existing, entry);
  if (jsonEqual(found.existing, want)) return { status: "unchanged", text };
  const options = { formattingOptions: formatting(text) };
  const base = [...table, SERVER_NAME];
  let out = text;
  if (found.existing === undefined) {
    // First in the table: appending after the last entry makes jsonc-parser reformat that entry and move the
    // comment that ends its line under ours.
    out = applyEdits(out, modify(out, base, entry, { ...options, getInsertionIndex: () => 0 }));
  } else {
    const existing = found.existing as Obj;
    for (const key of MANAGED_KEYS) {
      const next = entry[key];
      if (next === undefined && !Object.hasOwn(existing, key)) continue;
      if (next !== undefined && jsonEqual(existing[key], next)) continue;
      out = applyEdits(out, modify(out, [...base, key], next, options));
    }
    // Keys written once (OpenCode's timeout) that the entry does not have yet: without them the check below
    // would refuse the edit.
    for (const [key, value] of Object.entries(entry)) {
      if (!(MANAGED_KEYS as readonly string[]).includes(key) && !Object.hasOwn(existing, key)) out = applyEdits(out, modify(out, [...base, key], value, options));
    }
  }
  // Check the edit did exactly what was meant: our entry as wanted, everything else as it was.
  const after: unknown = parse(out, [], { allowTrailingComma: true });
  const check = locate(after, table);
  if ("error" in check || !jsonEqual(check.existing, want) || !jsonEqual(withoutEntry(after as Obj, table), withoutEntry(root as Obj, table))) {
    return { status: "malformed", reason: "the file could not be edited without touching other settings; add the entry by hand (see --dry-run for it)" };
  }
  return { status: "updated", text: out };
}

const HEADER = /^\s*\[\[?\s*([^\]]*?)\s*\]\]?\s*(#.*)?$/;

function headerPath(line: string): string[] | null {
  const m = HEADER.exec(line);
  if (!m) return null;
  return m[1]!.split(".").map((p) => p.trim().replace(/^"(.*)"$/, "$1").replace(/^'(.*)'$/, "$1"));
}

/**
 * Merges `entry` as `[<table>.hostgate]` into a TOML file's text. Only the lines of our table (and its
 * sub-tables) are replaced; comments and the rest of the file stay byte for byte. The result is parsed and
 * compared with what was meant; when our entry was written in a form this cannot edit (inline table, dotted
 * keys elsewhere), the file is reported instead of rewritten.
 */
export function mergeToml(text: string | null, table: readonly string[], entry: Record<string, Json>): MergeResult {
  const block = (e: Record<string, unknown>) => stringifyToml(nest(table, { [SERVER_NAME]: e as Json })).trimEnd();
  if (text === null || text.trim() === "") return { status: "created", text: `${block(entry)}\n` };
  const deep = tooDeep(text, "toml");
  if (deep !== null) return { status: "malformed", reason: deep };
  let root: Obj;
  try {
    root = parseToml(text);
  } catch (err) {
    return { status: "malformed", reason: `not valid TOML: ${(err as Error).message.split("\n")[0]}` };
  }
  const found = locate(root, table);
  if ("error" in found) return { status: "malformed", reason: found.error };
  const want = mergedEntry(found.existing, entry);
  if (jsonEqual(found.existing, want)) return { status: "unchanged", text };
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const lines = text.split(/\r?\n/);
  const ours = [...table, SERVER_NAME];
  const isOurs = (p: string[]) => ours.every((seg, i) => p[i] === seg);
  const kept: string[] = [];
  let insertAt = -1;
  let inOurs = false;
  let removed: string[] = [];
  for (const line of lines) {
    const p = headerPath(line);
    if (p !== null) {
      const next = isOurs(p);
      if (inOurs && !next) {
        // Comments and blank lines just above the next table belong to it, not to ours.
        let i = removed.length;
        while (i > 0 && /^\s*(#.*)?$/.test(removed[i - 1]!)) i--;
        kept.push(...removed.slice(i));
        removed = [];
      }
      inOurs = next;
    }
    if (inOurs) {
      if (insertAt < 0) insertAt = kept.length;
      removed.push(line);
      continue;
    }
    kept.push(line);
  }
  const newBlock = block(want).split("\n");
  let outLines: string[];
  if (insertAt < 0) {
    while (kept.length > 0 && kept[kept.length - 1] === "") kept.pop();
    outLines = [...kept, "", ...newBlock, ""];
  } else {
    const rest = kept.slice(insertAt);
    while (rest.length > 0 && rest[0]!.trim() === "") rest.shift();
    outLines = [...kept.slice(0, insertAt), ...newBlock, ...(rest.length > 0 ? ["", ...rest] : [""])];
  }
  const out = outLines.join(eol);
  let after: Obj;
  try {
    after = parseToml(out);
  } catch {
    return { status: "malformed", reason: `[${ours.join(".")}] cannot be added safely (the file defines it in a form this cannot edit: inline table or dotted keys); add it by hand (see --dry-run for the entry)` };
  }
  const check = locate(after, table);
  if ("error" in check || !jsonEqual(check.existing, want) || !jsonEqual(withoutEntry(after, table), withoutEntry(root, table))) {
    return { status: "malformed", reason: `[${ours.join(".")}] is written in a form this cannot edit safely (inline table or dotted keys); edit it by hand (see --dry-run for the entry)` };
  }
  return { status: "updated", text: out };
}
