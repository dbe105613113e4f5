import { HostgateError } from "../errors.ts";
import type { HostRecord } from "./record.ts";

/**
 * The filter half of `search_hosts` (pure): which records match a query. `name` is a case-insensitive
 * substring of the record's name or primary_ip; `name_regex` a JavaScript regular expression (≤ 256 chars,
 * tested against the name); `tags` a comma-separated list of tags the record must all carry (exact,
 * case-sensitive, as policies compare them); all empty: everything.
 */
export interface HostQuery {
  name?: string | undefined;
  name_regex?: string | undefined;
  tags?: string | undefined;
}

/** Compiles a query into a predicate. Throws `invalid_params` for a regex that does not compile or is too long. */
export function hostMatcher(q: HostQuery): (r: HostRecord) => boolean {
  const needle = (q.name ?? "").toLowerCase();
  let re: RegExp | null = null;
  if (q.name_regex) {
    if (q.name_regex.length > 256) throw new HostgateError("invalid_params", "name_regex is longer than 256 characters", { hint: "Use a shorter pattern or the plain `name` substring filter." });
    try {
      re = new RegExp(q.name_regex, "i");
    } catch (e) {
      throw new HostgateError("invalid_params", `name_regex does not compile: ${(e as Error).message}`, { hint: "Pass a JavaScript regular expression, e.g. ^db-\\d+$" });
    }
  }
  const tags = splitList(q.tags);
  return (r) => {
    if (tags.some((t) => !r.tags.includes(t))) return false;
    if (needle && !r.name.toLowerCase().includes(needle) && !r.primary_ip.toLowerCase().includes(needle)) return false;
    if (re && !re.test(r.name)) return false;
    return true;
  };
}

/** Splits a comma-separated list ("gcp,k8s"), trimming and dropping empties. */
export function splitList(s: string | undefined): string[] {
  return (s ?? "").split(",").map((x) => x.trim()).filter((x) => x.length > 0);
}
