import { fixedTool } from "./fixed.ts";

/** `search_hosts`: every inventory backend searched in parallel; failing backends listed beside the results. */
export const searchHostsTool = fixedTool({
  name: "search_hosts",
  method: "search_hosts",
  title: "Search hosts",
  description: "Find hosts; their names are host arguments elsewhere (default local).",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
});
