import type { Toolset } from "../core/toolsets.ts";
import type { CallOptions, DaemonClient } from "../ipc/client.ts";
import type { AgentMethod } from "../ipc/methods.ts";

/** The four MCP tool annotations; every tool sets all four explicitly (DESIGN.md, Words). */
export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** A tool result as MCP carries it (a subset of CallToolResult that we produce). */
export interface ToolResult {
  [key: string]: unknown;
  content: { type: "text"; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

/**
 * One model-facing tool as data plus a small handler. `handler` only forwards to the daemon through the
 * client and shapes the answer: no safety decision is made in the front (DESIGN.md, trust boundary).
 */
export interface ToolSpec {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations: ToolAnnotations;
  toolsets: readonly Toolset[];
  /** Hidden by default; the config key that turns it on (exec_on_host: `exec.enabled`). See core/toolsets.ts `exposureOf`. */
  off_by_default?: string;
  /** A direct tool's catalogue action (PascalCase), which decides whether tools/list lists it (core/catalogue/surface.ts). */
  action?: string;
  /** The daemon method the tool calls (ipc/methods.ts). */
  method: AgentMethod;
  /** `ctx` carries what the front knows of its client (its self-reported name), passed on to the daemon. */
  handler(args: Record<string, unknown>, client: DaemonClient, ctx?: CallOptions): Promise<ToolResult>;
}
