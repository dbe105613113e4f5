import { readHostIdentity } from "../app/host-identity.ts";
import { localUnavailable } from "../app/local-availability.ts";
import { CATALOGUE } from "../core/catalogue/index.ts";
import { systemdUnavailableReason, type SystemdBackendConfig } from "./select-backend.ts";
import { LinuxHostProbe } from "../adapters/host-linux.ts";
import { prebuilt, thisBuild } from "../ipc/prebuilt.ts";
import { PROTOCOL_VERSION, type DescribeResult } from "../ipc/protocol.ts";
import type { ExposureSettings } from "../core/toolsets.ts";

/**
 * What the embedded daemon of this build will answer to `describe` on this host, without starting it: the
 * host's identity read as the daemon reads it (app/host-identity.ts) and the descriptors from the build's
 * prebuilt table (ipc/prebuilt.ts). A front that is about to run the embedded daemon lists its tools from
 * this and composes the daemon after the handshake (issue 14, cold start). Null when there is no table
 * (running from the sources) or it lacks a name the family needs: the caller then asks the daemon. `backend`: the
 * config's systemd backend section, for `local_unavailable`. `exposure`: the settings that daemon will gate by
 * (config/exposure.ts, from the config it will be composed with: compose.ts gates by the same), said as its `describe` says them.
 */
export async function describeThisBuild(backend: SystemdBackendConfig | undefined, exposure: ExposureSettings): Promise<DescribeResult | null> {
  const table = prebuilt();
  if (!table) return null;
  // The same probe the daemon reads its identity through (compose.ts), so both read the same files the same way.
  const probe = new LinuxHostProbe();
  const identity = await readHostIdentity(probe);
  const names = table.families[identity.family];
  const actions = names?.map((n) => table.actions[n]);
  if (!actions || actions.some((a) => a === undefined)) return null;
  // What the daemon will say is unavailable on this host (compose.ts computes it the same way).
  const unavailable = await localUnavailable(CATALOGUE, probe, (await systemdUnavailableReason(backend, probe)) === null);
  return { protocol_version: PROTOCOL_VERSION, build: thisBuild(), host: identity, actions: actions as DescribeResult["actions"], ...(Object.keys(unavailable).length > 0 ? { local_unavailable: unavailable } : {}), exposure };
}
