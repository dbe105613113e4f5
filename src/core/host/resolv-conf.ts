/**
 * Parser for resolv.conf(5): `nameserver` (at most 3 used by glibc, all reported), `search` / `domain` (the
 * last of the two wins, as in glibc), `options`. Comments start with `#` or `;`. Unknown keywords are ignored.
 */
export interface ResolvConf {
  nameservers: string[];
  search: string[];
  options: string[];
}

/** Parses resolv.conf text; never throws (an empty or odd file gives empty lists). */
export function parseResolvConf(text: string): ResolvConf {
  const out: ResolvConf = { nameservers: [], search: [], options: [] };
  for (const raw of text.split("\n")) {
    const line = raw.replace(/[#;].*$/, "").trim();
    const [key, ...rest] = line.split(/\s+/);
    if (key === "nameserver" && rest[0]) out.nameservers.push(rest[0]);
    else if (key === "search" || key === "domain") out.search = rest.filter((s) => s !== "");
    else if (key === "options") out.options.push(...rest.filter((s) => s !== ""));
  }
  return out;
}

/** The address of systemd-resolved's stub listener (systemd-resolved.service(8)). */
export const RESOLVED_STUB = "127.0.0.53";
