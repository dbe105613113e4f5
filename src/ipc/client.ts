import type { DescribeResult, QueryResult } from "./protocol.ts";

/**
 * The one interface the MCP front uses to reach the daemon (DESIGN.md: "The MCP front talks to the daemon
 * only through one client interface"). Implemented in-process by the embedded daemon and over a socket by
 * the remote client; both answer with the schemas of ipc/protocol.ts.
 */
export interface DaemonClient {
  /** The actions offered on this host (already filtered to its distro family) and the host identity. */
  describe(): Promise<DescribeResult>;
  /** Runs one read-only action by PascalCase name. Never rejects for action errors: see QueryResult. */
  query(action: string, args: unknown): Promise<QueryResult>;
  close(): Promise<void>;
}
