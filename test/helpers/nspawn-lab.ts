/**
 * A composed daemon whose static inventory names one nspawn container reached over SSH (test/peers/nspawn-ssh.ts):
 * host `box` logs in as `deploy` with `become: sudo`; `extraHosts` add more entries for the same container (e.g. a
 * root login). Reads on hosts tagged `lab` are permitted by one Cedar policy; the daemon's state lives in a scratch
 * directory removed by `stop`. Shared by the nspawn action suites (config-actions, remote-contexts,
 * remote-actions) so their setup is written once.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigSchema } from "../../src/config/schema.ts";
import { composeDaemon, type ComposedDaemon } from "../../src/daemon/compose.ts";
import { startNspawnSsh, type NspawnSshPeer } from "../peers/nspawn-ssh.ts";

/** One lab: the container, the daemon, the scratch directory, and `stop` (daemon, container, directory; idempotent). */
export interface NspawnLab {
  peer: NspawnSshPeer;
  d: ComposedDaemon;
  work: string;
  stop(): Promise<void>;
}

/** Starts the container and the daemon (about 10–60 s). `prefix` names the scratch directory under the temp dir. */
export async function startNspawnLab(prefix: string, extraHosts: (peer: NspawnSshPeer) => Record<string, unknown>[] = () => []): Promise<NspawnLab> {
  const peer = await startNspawnSsh();
  const work = mkdtempSync(join(tmpdir(), prefix));
  const stopAll = async (d?: ComposedDaemon): Promise<void> => {
    await d?.close();
    await peer.stop();
    rmSync(work, { recursive: true, force: true });
  };
  try {
    const policies = mkdtempSync(join(work, "policies-"));
    writeFileSync(join(policies, "read.cedar"), `@id("read-lab")\npermit (principal, action == Hostgate::Action::"read", resource) when { resource.tags.contains("lab") };\n`);
    process.env.HOSTGATE_STATE_DIR = mkdtempSync(join(work, "state-"));
    const config = ConfigSchema.parse({
      backend: { type: "mock" },
      policy: { dir: policies },
      exec: { known_hosts: [peer.knownHosts], identity_files: [peer.clientKey], use_agent: false, user: "root", host_keys: "strict", connect_timeout_ms: 10_000 },
      inventory: { providers: [{ kind: "static", name: "lab", cache_ttl: 0, tags: ["lab"], hosts: [
        { name: "box", address: peer.ip, port: peer.port, user: "deploy", become: "sudo" },
        ...extraHosts(peer),
      ] }] },
    });
    const d = await composeDaemon(config, { mode: "embedded", announce: () => undefined });
    let stopped = false;
    return { peer, d, work, stop: async () => { if (!stopped) { stopped = true; await stopAll(d); } } };
  } catch (err) {
    await stopAll();
    throw err;
  } finally {
    delete process.env.HOSTGATE_STATE_DIR;
  }
}
