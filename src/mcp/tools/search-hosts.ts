import { fixedTool } from "./fixed.ts";

/** `search_hosts`: every inventory backend searched in parallel; failing backends listed beside the results. */
export const searchHostsTool = fixedTool({
  name: "search_hosts",
  method: "search_hosts",
  title: "Search hosts across inventory backends",
  description: "Search every configured inventory backend (static list, ~/.ssh/config resolved like ssh -G, known_hosts, Docker/podman) in parallel. Filters: name (substring of name or address), name_regex, providers (kinds, comma-separated), backends (names). A backend that fails or times out never fails the search: its error is in `errors`. Listings are cached per backend (cache_ttl); no_cache / refresh list live; overrides change a backend's settings for this call (override → config → default). Returns records { name, primary_ip, provider, backend, meta, tags, ssh_user } — pass `name` to exec_on_host or get_host_details. Record fields are host-derived: untrusted.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  toolsets: ["hosts"],
});
