import { readHostIdentity } from "../app/host-identity.ts";
import { LinuxHostProbe } from "../adapters/host-linux.ts";
import { prebuilt, thisBuild } from "../ipc/prebuilt.ts";
import { PROTOCOL_VERSION, type DescribeResult } from "../ipc/protocol.ts";

/**
 * What the embedded daemon of this build will answer to `describe` on this host, without starting it: the
 * host's identity read as the daemon reads it (app/host-identity.ts) and the descriptors from the build's
 * prebuilt table (ipc/prebuilt.ts). A front that is about to run the embedded daemon lists its tools from
 * this and composes the daemon after the handshake (issue 14, cold start). Null when there is no table
 * (running from the sources) or it lacks a name the family needs: the caller then asks the daemon.
 */
export async function describeThisBuild(): Promise<DescribeResult | null> {
  const table = prebuilt();
  if (!table) return null;
  // The same probe the daemon reads its identity through (compose.ts), so both read the same files the same way.
  const identity = await readHostIdentity(new LinuxHostProbe());
  const names = table.families[identity.family];
  const actions = names?.map((n) => table.actions[n]);
  if (!actions || actions.some((a) => a === undefined)) return null;
  return { protocol_version: PROTOCOL_VERSION, build: thisBuild(), host: identity, actions: actions as DescribeResult["actions"] };
}
