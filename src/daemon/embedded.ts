import { nodeHasher } from "../adapters/hasher-node.ts";
import { LinuxHostProbe } from "../adapters/host-linux.ts";
import { LinuxHostMutator } from "../adapters/host-mutator-linux.ts";
import { describeAction } from "../app/describe.ts";
import { readHostIdentity } from "../app/host-identity.ts";
import { queryAction } from "../app/query.ts";
import type { Action, ActionContext, DistroFamily } from "../core/catalogue/action.ts";
import { actionsFor, CATALOGUE } from "../core/catalogue/index.ts";
import type { DaemonClient } from "../ipc/client.ts";
import { PROTOCOL_VERSION, type DescribeResult, type QueryResult } from "../ipc/protocol.ts";
import type { Clock, HostProbe } from "../ports/host-probe.ts";

/** Options for the embedded daemon; tests inject a probe, clock, family or catalogue. */
export interface EmbeddedOptions {
  host?: HostProbe;
  clock?: Clock;
  family?: DistroFamily;
  catalogue?: readonly Action[];
}

/**
 * The daemon running in the same process as the MCP front (`hostgate mcp`, `hostgate serve` without a
 * socket): the zero-setup default for one user. It implements the same DaemonClient the socket client
 * does, so the front cannot tell them apart.
 */
export async function createEmbeddedDaemon(opts: EmbeddedOptions = {}): Promise<DaemonClient> {
  const host = opts.host ?? new LinuxHostProbe();
  const identity = await readHostIdentity(host);
  const family = opts.family ?? identity.family;
  const ctx: ActionContext = {
    host,
    clock: opts.clock ?? { now: () => Date.now() },
    family,
    mutator: new LinuxHostMutator(),
    hash: nodeHasher,
    self_pid: process.pid,
  };
  const catalogue = opts.catalogue ?? CATALOGUE;
  const described: DescribeResult = {
    protocol_version: PROTOCOL_VERSION,
    host: { hostname: identity.hostname, family },
    actions: actionsFor(family, catalogue).map(describeAction),
  };
  return {
    describe: () => Promise.resolve(described),
    query: (action: string, args: unknown): Promise<QueryResult> => queryAction(action, args, ctx, identity.hostname, catalogue),
    close: () => Promise.resolve(),
  };
}
