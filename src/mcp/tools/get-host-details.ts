import { fixedTool } from "./fixed.ts";

/** `get_host_details`: one host's record and capabilities (probe opt-in). */
export const getHostDetailsTool = fixedTool({
  name: "get_host_details",
  method: "get_host_details",
  title: "Details and capabilities of one host",
  description: "Resolve one host by name (optionally within one provider kind or backend) and return its record, its SSH endpoint (host, port, user, proxy_jump) and capabilities: ssh, docker_exec (running container), and with probe: true a fixed read-only check over SSH (host key verified, audited) that adds systemd and hostgate_daemon where they answer. Nothing from the caller is run.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  toolsets: ["hosts"],
});
