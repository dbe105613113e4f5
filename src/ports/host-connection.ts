import type { BecomeCheck } from "../core/inventory/become.ts";

/**
 * How the daemon reaches a remote host (issue 20), as the adapter that dialled it knows it: facts for the audit
 * entry of every change and command there.
 */
export interface ConnectionFacts {
  /** The SSH login user. */
  ssh_user: string;
  /**
   * The SHA-256 fingerprint of the host key the connection was verified with, as OpenSSH prints it
   * (`ssh-keygen -lf`): `SHA256:` + unpadded base64 of the SHA-256 of the key blob. For a ProxyJump route, the
   * target's key (each hop was verified against its own name when dialled).
   */
  host_key: string;
  /** The key's algorithm as the server sent it, e.g. `ssh-ed25519`. */
  host_key_type: string;
  /** Whether privileged commands are run through `sudo -n` (inventory `become: sudo`); false for exec_on_host. */
  sudo: boolean;
}

/** Where a remote host's systemd is reached: its own D-Bus over SSH, `systemctl` text, or not at all. */
export type SystemdPath = "dbus_bridge" | "systemctl" | "none";

/**
 * The connection side of one remote host's action context (ActionContext.connection; absent on `local`). Built by
 * the SSH adapters over the host's pooled connection; the app layer never touches SSH itself.
 */
export interface HostConnection {
  /**
   * The facts of the connection the context's ports use now (dialled again if the pool closed it: its key is
   * re-checked against known_hosts as for any lease). Rejects with the pool's HostgateError codes
   * (`unreachable`, `host_key_unknown`, `host_key_mismatch`, …).
   */
  facts(): Promise<ConnectionFacts>;
  /**
   * Whether changes can run as root there (`id -u`, or `sudo -n id -u` for `become: sudo`): one round trip,
   * the answer kept by the context for `privilege_ttl_ms` so a plan of many steps asks once. Never rejects for
   * a sudo refusal (that is `ok: false` with the error execute would meet); rejects when the host cannot be
   * reached. `{ fresh: true }` asks the host again whatever is kept (execute's re-check: a sudo rule removed
   * after the plan) and keeps the new answer.
   */
  privilege(opts?: { fresh?: boolean }): Promise<BecomeCheck>;
  /** Which systemd path the context found when it was built, and the sentence doctor/describe show. */
  systemd: { path: SystemdPath; detail: string };
}
