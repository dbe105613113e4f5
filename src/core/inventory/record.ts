import type { Become } from "./become.ts";

/**
 * The host model shared by every inventory provider (DESIGN.md, Words: host). Providers turn what they know
 * (a config list, an OpenSSH client config, known_hosts, a container engine) into `HostRecord`s; the search
 * use case merges them. Field names follow the hosts-exec reference (`name`, `primary_ip`, `provider`, `meta`).
 */

import { PROVIDERS } from "./providers/index.ts";

/**
 * Provider kinds hostgate ships, from the provider registry (core/inventory/providers/index.ts). A backend is
 * one configured instance of a kind (`inventory.providers[]`).
 */
export type ProviderKind = (typeof PROVIDERS)[number]["kind"];
export const PROVIDER_KINDS: readonly ProviderKind[] = PROVIDERS.map((p) => p.kind);

/** What can be done with a host, derived from its record (and probes where one answers). */
export type Capability = "ssh" | "docker_exec" | "systemd" | "hostgate_daemon";

/**
 * How to reach a host over SSH, resolved the way `ssh <alias>` would resolve it (for ssh_config) or from the
 * provider's own fields. `host` is what is dialed (HostName), `port` a TCP port, `user` the login user (absent:
 * the daemon's configured or local user), `identity_files` absolute paths or `~/` paths in the order ssh tries
 * them, `proxy_jump` the jump hosts in order (each `[user@]host[:port]`; empty: direct).
 */
export interface SshEndpoint {
  host: string;
  port: number;
  user?: string | undefined;
  identity_files: string[];
  proxy_jump: string[];
  /**
   * How approved changes get root when `user` is not root (core/inventory/become.ts): `sudo` prefixes them with
   * `sudo -n --`; absent or `none`: the login must be root. From the inventory (a static host's or its backend's
   * `become`), never from the host itself.
   */
  become?: Become | undefined;
  /**
   * Set when this endpoint must not be dialed, with the message and hint the refusal carries (code
   * `ssh_config_error`): a ProxyCommand (corpus T3-07), an Include that cannot be read, a malformed hostgate
   * comment. Absent: it may be dialed.
   */
  refusal?: { message: string; hint: string } | undefined;
}

/**
 * The machine an exec target is, as policies see it (core/inventory/identity.ts): the inventory entry it was
 * matched to (`name`, `provider`, `backend`, `tags`, and that entry's normalised `address` and `port`) or
 * itself (the normalised address and port it dials),
 * `same_as` the other inventory entries found to be the same machine, `matched_by` how (resolved address and
 * port, or a host key known_hosts records for both). `backend` is `literal` for a target no backend lists and
 * that matches no inventory entry: it has no tags.
 */
export interface MachineIdentity {
  name: string;
  provider: ProviderKind;
  backend: string;
  tags: string[];
  address: string;
  port: number;
  same_as: string[];
  matched_by: ("address" | "host_key")[];
}

/**
 * One host as an inventory provider reports it. `name` is the inventory name (an ssh_config alias, a container
 * name, a static entry's name); `primary_ip` the address or DNS name to reach it (the reference's field name,
 * which may hold a host name); `backend` the configured backend that produced it; `meta` provider-specific
 * strings (zone, image, state…); `tags` labels usable by policies; `ssh` present when the host is reachable
 * over SSH. Everything here is data from the provider: untrusted text, never a command.
 */
export interface HostRecord {
  name: string;
  primary_ip: string;
  provider: ProviderKind;
  backend: string;
  meta: Record<string, string>;
  tags: string[];
  ssh?: SshEndpoint | undefined;
  /** Set by exec target resolution (app/inventory.ts resolveTarget): which machine this is for policies. */
  machine?: MachineIdentity | undefined;
}

/**
 * The capabilities a record implies without contacting the host (probes may add `systemd`/`hostgate_daemon`).
 * An SSH endpoint hostgate refuses to dial (`refusal`) is not the `ssh` capability.
 */
export function staticCapabilities(r: HostRecord): Capability[] {
  const caps: Capability[] = [];
  if (r.ssh && !r.ssh.refusal) caps.push("ssh");
  if (r.provider === "docker" && r.meta.state === "running") caps.push("docker_exec");
  return caps;
}
