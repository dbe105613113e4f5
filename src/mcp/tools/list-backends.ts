import { fixedTool } from "./fixed.ts";

/** `list_backends`: the configured inventory backends (kind, name, hint, notes). */
export const listBackendsTool = fixedTool({
  name: "list_backends",
  method: "list_backends",
  title: "List inventory backends",
  description: "The inventory backends search_hosts uses: kind (static, ssh_config, known_hosts, docker), name, a short hint (file or socket) and notes on what a backend cannot list (e.g. hashed known_hosts entries). defaulted is true when no inventory is configured and the daemon user's ~/.ssh/config and ~/.ssh/known_hosts are used.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  toolsets: ["hosts"],
});
