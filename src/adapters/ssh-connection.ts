import type { RemoteSystemd } from "./systemd-bridge-ssh.ts";
import type { BecomeCheck } from "../core/inventory/become.ts";
import type { ConnectionFacts, HostConnection } from "../ports/host-connection.ts";
import type { Clock } from "../ports/host-probe.ts";
import type { PresentedKey } from "./exec-ssh/dial.ts";
import { blobKeyType, fingerprint } from "./exec-ssh/host-keys.ts";

/** How long a host's privilege answer is kept by its context, in milliseconds (one plan asks once). */
export const PRIVILEGE_TTL_MS = 60_000;

/** The audit facts of a verified connection: login user, the target's key as OpenSSH fingerprints it, sudo. */
export function connectionFacts(id: { user: string; key: PresentedKey }, sudo: boolean): ConnectionFacts {
  return { ssh_user: id.user, host_key: fingerprint(id.key.blob), host_key_type: blobKeyType(id.key.blob), sudo };
}

/** What {@link sshHostConnection} needs: the host's session, its mutator, what its systemd detection found. */
export interface SshHostConnectionOptions {
  /** The pooled connection's identity (SshSession.identity). */
  identity: () => Promise<{ user: string; key: PresentedKey }>;
  /** The host's mutator: its privilege check and whether it prefixes `sudo -n`. */
  mutator: { canBecome(): Promise<BecomeCheck>; readonly sudo: boolean };
  systemd: RemoteSystemd;
  clock: Clock;
  /** How long a privilege answer is kept (default {@link PRIVILEGE_TTL_MS}). */
  privilegeTtlMs?: number;
}

/**
 * The HostConnection of one SSH host's context (ports/host-connection.ts): facts from the pool (no channel is
 * opened), the mutator's privilege check kept for `privilegeTtlMs` (an answer that failed to arrive is not
 * kept; `fresh` asks again), and the systemd path found when the context was built.
 */
export function sshHostConnection(o: SshHostConnectionOptions): HostConnection {
  const ttl = o.privilegeTtlMs ?? PRIVILEGE_TTL_MS;
  let kept: { at: number; answer: Promise<BecomeCheck> } | null = null;
  return {
    facts: async () => connectionFacts(await o.identity(), o.mutator.sudo),
    privilege: (opts = {}) => {
      const now = o.clock.now();
      if (kept && now - kept.at < ttl && opts.fresh !== true) return kept.answer;
      const slot = { at: now, answer: o.mutator.canBecome() };
      kept = slot;
      slot.answer.catch(() => { if (kept === slot) kept = null; });
      return slot.answer;
    },
    systemd: { path: o.systemd.kind, detail: o.systemd.detail },
  };
}
