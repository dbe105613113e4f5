import { HostgateError } from "./errors.ts";

/**
 * Opaque cursors for paginated lists. A cursor encodes the offset of the next item and a fingerprint of
 * the query it belongs to, so a cursor from one query cannot be replayed against another.
 */
export interface Page<T> {
  items: T[];
  total: number;
  next_cursor: string | null;
}

/** Slices `items` at the cursor's offset. `limit` is the page size (≥ 1). Throws `invalid_params` on a bad cursor. */
export function paginate<T>(items: readonly T[], limit: number, cursor: string | undefined, fingerprint: string): Page<T> {
  const offset = cursor === undefined ? 0 : decodeCursor(cursor, fingerprint);
  const slice = items.slice(offset, offset + limit);
  const next = offset + slice.length;
  return { items: slice, total: items.length, next_cursor: next < items.length ? encodeCursor(next, fingerprint) : null };
}

/** FNV-1a 32-bit of a string's UTF-16 code units, as 8 hex digits: keeps cursors short whatever the filter. */
function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, "0");
}

/** The cursor of the page that starts at `offset` (for lists that cut a page by size, not only by count). */
export function encodeCursor(offset: number, fingerprint: string): string {
  // base64url over UTF-8: btoa throws on characters above U+00FF, which a fingerprint built from a user filter may hold
  return Buffer.from(JSON.stringify([offset, fnv1a(fingerprint)]), "utf8").toString("base64url");
}

/** The offset a cursor of this query encodes; throws `invalid_params` for a cursor of another query or a forged one. */
export function decodeCursor(cursor: string, fingerprint: string): number {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (Array.isArray(parsed) && Number.isInteger(parsed[0]) && (parsed[0] as number) >= 0 && parsed[1] === fnv1a(fingerprint)) {
      return parsed[0] as number;
    }
  } catch {
    // fall through to the error below
  }
  throw new HostgateError("invalid_params", "The cursor is not valid for this query.", {
    hint: "Pass the next_cursor value from the previous page of the same query unchanged, or omit cursor to start over.",
  });
}
