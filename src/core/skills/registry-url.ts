/**
 * Where a registry file may be fetched from (issue 21, T3-21/T3-22). A release record names its archive by a
 * path relative to the registry base, and that text comes from the registry itself, so it must not be able to
 * leave the base: WHATWG URL resolution turns `%2e%2e/` into `../` (no literal `..` needed), and
 * `https:host/x` under an `http:` base is an absolute URL on another host. Pure: uses only the URL global.
 */

/** Percent-encoded `.`, `/` or `\`: a server that decodes them would see a path the URL parser did not. */
const ENCODED_SEPARATOR = /%2e|%2f|%5c/i;

/**
 * Resolves `rel` against `base` (an `http(s)://` URL whose path ends in `/`) and returns the result when it
 * keeps the base's origin (scheme, host, port) and its path stays under the base's path after normalisation;
 * otherwise throws Error saying why. Also refused: an empty `rel`, a query or fragment, backslashes, control
 * characters, and percent-encoded dots or separators (`%2e`, `%2f`, `%5c`).
 */
export function resolveUnderBase(base: URL, rel: string): URL {
  if (rel.length === 0) throw new Error("empty path");
  if (/[\u0000-\u001f\u007f\\?#]/.test(rel)) throw new Error(`${JSON.stringify(rel)} holds a control character, a backslash, '?' or '#'`);
  if (ENCODED_SEPARATOR.test(rel)) throw new Error(`${JSON.stringify(rel)} holds a percent-encoded '.', '/' or '\\'`);
  let url: URL;
  try {
    url = new URL(rel, base);
  } catch {
    throw new Error(`${JSON.stringify(rel)} is not a URL path`);
  }
  if (url.origin !== base.origin || url.protocol !== base.protocol) throw new Error(`${JSON.stringify(rel)} resolves to ${url.origin}, not the registry's ${base.origin}`);
  const prefix = base.pathname.endsWith("/") ? base.pathname : `${base.pathname}/`;
  if (!url.pathname.startsWith(prefix) || url.pathname.length === prefix.length) throw new Error(`${JSON.stringify(rel)} resolves to ${url.pathname}, outside the registry path ${prefix}`);
  if (url.username !== "" || url.password !== "") throw new Error(`${JSON.stringify(rel)} carries credentials`);
  return url;
}
