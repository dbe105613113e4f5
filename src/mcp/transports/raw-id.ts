/**
 * JSON-RPC ids kept exactly as the client wrote them (corpus T3-15). `JSON.parse` reads every number as an
 * IEEE-754 double, so an id above 2^53 (`9007199254740993`) or a 23-digit id comes back as another number;
 * answering with it makes the client's correlation fail. The transports read the id's raw token from the
 * message text, hand the SDK a stand-in string id (`RawIds.stand`), and write the answer with the raw token
 * in its place (`frame`). Ids that survive the round trip (every string, every safe integer) are left alone.
 */

const WS = new Set([" ", "\t", "\n", "\r"]);

function skipWs(text: string, i: number): number {
  while (i < text.length && WS.has(text[i]!)) i++;
  return i;
}

/** End (exclusive) of the JSON string starting at `i` (a `"`), or -1 when it does not close. */
function stringEnd(text: string, i: number): number {
  for (let j = i + 1; j < text.length; j++) {
    const c = text[j];
    if (c === "\\") j++;
    else if (c === '"') return j + 1;
  }
  return -1;
}

/** End (exclusive) of the JSON value starting at `i`, or -1 for text that is not one. */
function valueEnd(text: string, i: number): number {
  const c = text[i];
  if (c === '"') return stringEnd(text, i);
  if (c !== "{" && c !== "[") {
    let j = i;
    while (j < text.length && !WS.has(text[j]!) && text[j] !== "," && text[j] !== "}" && text[j] !== "]") j++;
    return j > i ? j : -1;
  }
  let depth = 0;
  for (let j = i; j < text.length; j++) {
    const d = text[j];
    if (d === '"') { j = stringEnd(text, j) - 1; if (j < 0) return -1; continue; }
    if (d === "{" || d === "[") depth++;
    else if (d === "}" || d === "]") { depth--; if (depth === 0) return j + 1; }
  }
  return -1;
}

/**
 * The raw text of the member at `path` (e.g. `["id"]`, `["params", "requestId"]`) of the JSON object `text`,
 * as `JSON.parse` would pick it (the last of duplicate keys; keys compared after unescaping), or undefined
 * when there is none. `text` is expected to be valid JSON (it was parsed before); anything else gives undefined.
 */
export function memberToken(text: string, path: readonly string[]): string | undefined {
  let i = skipWs(text, 0);
  if (text[i] !== "{") return undefined;
  let found: string | undefined;
  i = skipWs(text, i + 1);
  while (i < text.length && text[i] !== "}") {
    const keyEnd = stringEnd(text, i);
    if (keyEnd < 0) return undefined;
    const key = JSON.parse(text.slice(i, keyEnd)) as string;
    i = skipWs(text, keyEnd);
    if (text[i] !== ":") return undefined;
    const start = skipWs(text, i + 1);
    const end = valueEnd(text, start);
    if (end < 0) return undefined;
    if (key === path[0]) found = path.length === 1 ? text.slice(start, end) : memberToken(text.slice(start, end), path.slice(1));
    i = skipWs(text, end);
    if (text[i] === ",") i = skipWs(text, i + 1);
  }
  return found;
}

/** Whether `value`, parsed from `raw`, would be written back as a different token (a number that lost digits or changed form). */
export function numberChanged(value: unknown, raw: string | undefined): raw is string {
  return typeof value === "number" && raw !== undefined && JSON.stringify(value) !== raw;
}

/**
 * Two ids are the same request id when they are the same string, or numbers of the same value: a key for
 * the in-flight table. A number's value is taken from its raw token when it has one (an integer literal
 * exactly, by BigInt), so `9007199254740993` and `9007199254740992` stay two ids.
 */
export function idKey(id: string | number, raw?: string): string {
  if (typeof id === "string") return `s:${id}`;
  if (raw !== undefined) return /^-?\d+$/.test(raw) ? `n:${BigInt(raw).toString()}` : `n:${raw}`;
  return `n:${String(id)}`;
}

/**
 * One line of JSON for `message`, with `rawId` written verbatim as its `id` member when given (the token the
 * client sent), otherwise `JSON.stringify(message)`.
 */
export function frame(message: object, rawId?: string): string {
  if (rawId === undefined || !("id" in message)) return JSON.stringify(message);
  const rest: Record<string, unknown> = { ...message };
  const jsonrpc = rest.jsonrpc;
  delete rest.jsonrpc;
  delete rest.id;
  const tail = JSON.stringify(rest).slice(1);
  return `{"jsonrpc":${JSON.stringify(jsonrpc ?? "2.0")},"id":${rawId}${tail === "}" ? "" : ","}${tail}`;
}

/**
 * Stand-in ids for requests whose numeric id would not survive `JSON.parse`: a string no client can guess
 * (a per-table random prefix + a counter), mapped back to the raw token when the answer is written.
 */
export class RawIds {
  private readonly prefix = `hostgate-raw-id:${globalThis.crypto.randomUUID()}:`;
  private next = 0;
  private readonly byStand = new Map<string, string>();

  /** A fresh stand-in for the raw token `raw`. */
  stand(raw: string): string {
    const id = `${this.prefix}${this.next++}`;
    this.byStand.set(id, raw);
    return id;
  }

  /** The raw token a stand-in replaced, if `id` is one. */
  raw(id: unknown): string | undefined {
    return typeof id === "string" ? this.byStand.get(id) : undefined;
  }

  /** The stand-in currently used for `raw`, if any (a cancellation names the request by its raw id). */
  standFor(raw: string): string | undefined {
    for (const [stand, r] of this.byStand) if (r === raw) return stand;
    return undefined;
  }

  /** Forgets a stand-in once its request is answered. */
  release(id: unknown): void {
    if (typeof id === "string") this.byStand.delete(id);
  }
}
