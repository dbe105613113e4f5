import { realpathSync } from "node:fs";
import { LinuxHostProbe } from "../adapters/host-linux.ts";
import { LinuxHostMutator } from "../adapters/host-mutator-linux.ts";
import { nodeCrypto } from "../adapters/crypto-node.ts";
import { nodeX509 } from "../adapters/x509-node.ts";
import { lookupGroupId } from "../adapters/os-groups.ts";
import { readHostIdentity } from "../app/host-identity.ts";
import { systemdResourceProvider } from "../app/unit-resources.ts";
import type { Config } from "../config/schema.ts";
import type { ActionContext } from "../core/catalogue/action.ts";
import type { LogReadPolicy } from "../core/catalogue/log-policy.ts";
import type { Clock, HostProbe } from "../ports/host-probe.ts";
import type { DaemonFeature } from "./feature.ts";
import { configDir, runtimeDir, stateDir, type DaemonMode } from "./paths.ts";
import { selectBackend, type BackendSelection } from "./select-backend.ts";

/**
 * The local feature: the daemon's own host (`local`) — its probe, systemd backend, mutator and the paths
 * WriteFile refuses — and where the daemon keeps state, sockets and configuration.
 */
export interface LocalFeature extends DaemonFeature {
  ctx: ActionContext;
  identity: { hostname: string; family: ActionContext["family"] };
  backend: BackendSelection;
  state: string;
  runtime: string;
  config_dir: string;
  /** `logs.readable` as configured (or its mode default), for doctor. */
  logs_readable: string;
}

/** hostgate's own path and, when it differs, its real path (WriteFile refuses both). */
function withRealPath(p: string): string[] {
  try {
    const real = realpathSync(p);
    return real === p ? [p] : [p, real];
  } catch {
    return [p];
  }
}

/** Builds the local host's context; `announce` gets the backend selection line and its warning. */
export async function composeLocal(config: Config, opts: { mode: DaemonMode; host?: HostProbe; clock: Clock; announce: (line: string) => void }): Promise<LocalFeature> {
  // Our own probe holds a kept nft process (GetFirewallRuleset): ended with the daemon. A given probe is the caller's.
  const own = opts.host ? null : new LinuxHostProbe();
  const host = opts.host ?? own!;
  const identity = await readHostIdentity(host);
  const backend = await selectBackend(config.backend, host);
  opts.announce(backend.startup_line);
  if (backend.warning) opts.announce(backend.warning.replace(/^hostgate: /, ""));
  const state = stateDir(opts.mode, config.state.dir);
  const runtime = runtimeDir(opts.mode, state);
  const config_dir = configDir(opts.mode);
  // WriteFile refuses hostgate's own state, sockets and configuration (issue 12).
  const protected_paths = [state, runtime, config_dir].flatMap(withRealPath);
  const readable = config.logs.readable ?? (opts.mode === "system" ? "adm" : "all");
  const logs_readable: LogReadPolicy = readable === "all" ? { kind: "all" } : readable === "adm" ? { kind: "group", name: "adm", gid: lookupGroupId("adm") } : { kind: "paths", paths: readable };
  const ctx: ActionContext = { host, clock: opts.clock, family: identity.family, units: backend.units, mutator: new LinuxHostMutator(), hash: nodeCrypto, self_pid: process.pid, protected_paths, logs_readable,
    x509: nodeX509, ...(config.certificates.dirs === undefined ? {} : { certificate_dirs: config.certificates.dirs }) };
  return {
    name: "local",
    ctx,
    identity,
    backend,
    state,
    runtime,
    config_dir,
    logs_readable: typeof readable === "string" ? readable : readable.join(", "),
    resources: [systemdResourceProvider(ctx.units)],
    close: () => {
      own?.close();
      return backend.units.close();
    },
  };
}
