import { HostgateError } from "../errors.ts";
import type { HostRecord } from "./record.ts";

/**
 * The filter half of `search_hosts` (pure): which records match a query. `name` is a case-insensitive
 * substring of the record's name or primary_ip; `name_regex` a JavaScript regular expression (≤ 256 chars,
 * tested against the name); both empty: everything.
 */
export interface HostQuery {
  name?: string | undefined;
  name_regex?: string | undefined;
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
  return (r) => {
    if (needle && !r.name.toLowerCase().includes(needle) && !r.primary_ip.toLowerCase().includes(needle)) return false;
    if (re && !re.test(r.name)) return false;
    return true;
  };
}

/** Splits a comma-separated list ("gcp,k8s"), trimming and dropping empties. */
export function splitList(s: string | undefined): string[] {
  return (s ?? "").split(",").map((x) => x.trim()).filter((x) => x.length > 0);
}
