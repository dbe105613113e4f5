import type { Client as SshClient, ClientChannel, SFTPWrapper } from "ssh2";
import { HostgateError } from "../../core/errors.ts";
import type { ExecEndpoint } from "../../ports/executor.ts";
import { dial, recheckKeys, type DialOptions, type Hop, type PresentedKey } from "./dial.ts";

/**
 * One SSH connection pool shared by every SSH port (the executor, the host probe, the mutator, the remote
 * D-Bus): one connection per (user, host, port, jump chain), dialed with the host key checked before any
 * authentication (dial.ts), its keys re-checked against known_hosts before every lease (a key removed or
 * @revoked since closes it and refuses), closed after `idle_ms` without a lease, and at most `max_sessions`
 * channels at once per connection (leases beyond wait in order: OpenSSH's MaxSessions defaults to 10, corpus
 * S013). The connection's SFTP channel, once opened, is kept and counted as one of those channels.
 */

/**
 * How long a kept channel (the process table reader, host-ssh-ps-reader.ts; the remote D-Bus bridge,
 * systemd-bridge-ssh.ts) stays open without a call, in ms: below the pool's 60 s idle close, so a host nobody
 * asks gives its slots back and its connection closes; the next call opens the channel again.
 */
export const KEPT_CHANNEL_IDLE_MS = 20_000;

/** Pool settings: dialing plus pooling. */
export interface SshPoolOptions extends DialOptions {
  /** Close a connection after this many milliseconds without a lease (default 60 000). */
  idle_ms?: number;
  /** Channels at once per connection, the SFTP channel included (default 8, below OpenSSH's MaxSessions 10). */
  max_sessions?: number;
  /**
   * Handshakes in progress at once across the pool (default 4). A fan-out to 20 new hosts dials them 4 at a time:
   * each handshake (key exchange, host key check, authentication: CPU on both ends) gets the connect timeout to
   * itself instead of sharing a loaded machine with 19 others and timing out (issue 20). Waiting for a turn is
   * not bounded by the connect timeout; the caller's own timeout bounds it.
   */
  max_handshakes?: number;
}

/** Where to connect: the target and its ProxyJump hops, outermost first (each verified against its own name). */
export interface SshRoute {
  target: ExecEndpoint;
  jumps?: readonly ExecEndpoint[] | undefined;
}

/**
 * One channel slot on a pooled, verified connection. `release()` gives the slot back (call it once the channel
 * opened with `client` has closed; a second call is ignored). `onLost(f)` calls `f` if the connection drops
 * while the lease is held and returns the function that unsubscribes. `keys` are the host keys it was verified
 * with.
 */
export interface SshLease {
  client: SshClient;
  keys: readonly PresentedKey[];
  release(): void;
  onLost(f: () => void): () => void;
}

interface Conn {
  key: string;
  ready: Promise<{ client: SshClient; close: () => void; keys: PresentedKey[] }>;
  active: number;
  waiters: (() => void)[];
  idle: NodeJS.Timeout | undefined;
  dead: boolean;
  lost: Set<() => void>;
  sftp: Promise<SFTPWrapper> | undefined;
}

function hopKey(h: Hop, defUser: string): string {
  return `${h.user ?? defUser}@${h.host}:${h.port}`;
}

/** See the module comment. `close()` ends every connection; leases held then see `onLost`. */
export class SshPool {
  private readonly conns = new Map<string, Conn>();
  private handshakes = 0;
  private readonly handshakeQueue: (() => void)[] = [];

  constructor(readonly opts: SshPoolOptions) {}

  /** Number of open pooled connections (for tests and doctor). */
  get connections(): number {
    return this.conns.size;
  }

  /**
   * Waits for a channel slot on the route's connection (dialing it first when needed). Rejects with
   * HostgateError `invalid_target`, `unreachable`, `host_key_unknown`, `host_key_mismatch` (from dialing or the
   * re-check), or `cancelled` when `signal` aborts before a slot was given.
   */
  async acquire(route: SshRoute, signal?: AbortSignal): Promise<SshLease> {
    if (signal?.aborted) throw new HostgateError("cancelled", "cancelled before connecting");
    const { c, client, keys } = await this.verified(route);
    await this.slot(c, 1);
    if (signal?.aborted) {
      this.release(c, 1);
      throw new HostgateError("cancelled", "cancelled before the channel opened");
    }
    let held = true;
    return {
      client,
      keys,
      release: () => {
        if (!held) return;
        held = false;
        this.release(c, 1);
      },
      onLost: (f) => {
        c.lost.add(f);
        return () => { c.lost.delete(f); };
      },
    };
  }

  /**
   * The route's SFTP session: one per connection, opened on first use and kept (it holds one channel slot) until
   * the connection closes; requests from every caller are pipelined on it. Same rejections as `acquire`, plus
   * `unavailable` when the server has no sftp subsystem.
   */
  async sftp(route: SshRoute): Promise<SFTPWrapper> {
    const { c, client } = await this.verified(route);
    return this.openSftp(c, client);
  }

  /**
   * Who the route's connection is (issue 20, for audit entries): the login user and the host key of the target
   * it was verified with (the last hop of the route), on the connection dialed or reused and re-checked as for
   * a lease; no channel is opened. Same rejections as `acquire`.
   */
  async identity(route: SshRoute): Promise<{ user: string; key: PresentedKey }> {
    const { keys } = await this.verified(route);
    const key = keys[keys.length - 1];
    if (!key) throw new HostgateError("unavailable", `the connection to ${route.target.host}:${route.target.port} recorded no host key`);
    return { user: route.target.user ?? this.opts.default_user, key };
  }

  /** The route's connection, dialed or reused, with its host keys re-checked against known_hosts as they are now. */
  private async verified(route: SshRoute): Promise<{ c: Conn; client: SshClient; keys: PresentedKey[] }> {
    const c = this.conn(route);
    const { client, keys } = await c.ready;
    const revoked = recheckKeys(keys, this.opts);
    if (revoked) {
      this.drop(c);
      throw revoked;
    }
    return { c, client, keys };
  }

  private conn(route: SshRoute): Conn {
    const jumps = route.jumps ?? [];
    const key = [...jumps, route.target].map((h) => hopKey(h, this.opts.default_user)).join(" -> ");
    const existing = this.conns.get(key);
    if (existing && !existing.dead) return existing;
    const c: Conn = { key, ready: this.queuedDial(route.target, jumps), active: 0, waiters: [], idle: undefined, dead: false, lost: new Set(), sftp: undefined };
    this.conns.set(key, c);
    c.ready.then(({ client }) => {
      const gone = (): void => {
        c.dead = true;
        if (this.conns.get(key) === c) this.conns.delete(key);
        for (const f of [...c.lost]) f();
      };
      client.on("close", gone);
      client.on("error", gone);
    }, () => {
      c.dead = true;
      if (this.conns.get(key) === c) this.conns.delete(key);
    });
    return c;
  }

  /** dial() once a handshake turn is free (max_handshakes); the turn is given back when it settles. */
  private async queuedDial(target: ExecEndpoint, jumps: readonly ExecEndpoint[]): ReturnType<typeof dial> {
    if (this.handshakes >= (this.opts.max_handshakes ?? 4)) await new Promise<void>((r) => this.handshakeQueue.push(r));
    else this.handshakes++;
    try {
      return await dial(target, jumps, this.opts);
    } finally {
      const next = this.handshakeQueue.shift();
      if (next) next(); // the turn passes on (the count stays)
      else this.handshakes--;
    }
  }

  private async slot(c: Conn, n: number): Promise<void> {
    const max = this.opts.max_sessions ?? 8;
    if (c.idle) {
      clearTimeout(c.idle);
      c.idle = undefined;
    }
    while (c.active + n > max && c.active > 0) await new Promise<void>((r) => c.waiters.push(r));
    c.active += n;
  }

  private release(c: Conn, n: number): void {
    c.active -= n;
    const w = c.waiters.shift();
    if (w) {
      w();
      return;
    }
    this.idleLater(c);
  }

  /** Arms the idle close when nothing but the kept SFTP channel is open. */
  private idleLater(c: Conn): void {
    const idle = (): boolean => c.active <= (c.sftp ? 1 : 0);
    if (!idle() || c.dead || c.idle) return;
    c.idle = setTimeout(() => {
      c.idle = undefined;
      if (idle()) this.drop(c);
    }, this.opts.idle_ms ?? 60_000);
    c.idle.unref();
  }

  private openSftp(c: Conn, client: SshClient): Promise<SFTPWrapper> {
    c.sftp ??= (async () => {
      await this.slot(c, 1);
      return new Promise<SFTPWrapper>((resolve, reject) => {
        client.sftp((err, s) => {
          if (err) {
            c.sftp = undefined;
            this.release(c, 1);
            reject(new HostgateError("unavailable", `the SSH server refused an SFTP session: ${err.message}`, {
              hint: "Enable the sftp subsystem in the host's sshd_config (Subsystem sftp internal-sftp).",
            }));
            return;
          }
          s.once("close", () => {
            if (c.sftp) {
              c.sftp = undefined;
              this.release(c, 1);
            }
          });
          this.idleLater(c);
          resolve(s);
        });
      });
    })();
    return c.sftp;
  }

  private drop(c: Conn): void {
    c.dead = true;
    if (c.idle) clearTimeout(c.idle);
    if (this.conns.get(c.key) === c) this.conns.delete(c.key);
    void c.ready.then(({ close }) => { close(); }, () => undefined);
  }

  /** Ends every pooled connection. */
  close(): void {
    for (const c of [...this.conns.values()]) this.drop(c);
    this.conns.clear();
  }
}

/** A channel opened on a lease: a command (exec) or a subsystem stream. */
export type ChannelSpec = { command: string } | { subsystem: string };

/**
 * Opens one channel on a lease's connection; the lease is released when the channel closes (or when opening
 * fails). Rejects with `backend_error` when the server refuses the channel (MaxSessions).
 */
export function openLeasedChannel(lease: SshLease, spec: ChannelSpec): Promise<ClientChannel> {
  return new Promise((resolve, reject) => {
    const done = (err: Error | undefined, ch: ClientChannel): void => {
      if (err) {
        lease.release();
        reject(new HostgateError("backend_error", `the SSH server refused a session channel: ${err.message}`, {
          hint: "The host limits concurrent sessions (MaxSessions); lower exec.max_sessions or retry. Nothing ran.",
        }));
        return;
      }
      ch.once("close", () => { lease.release(); });
      resolve(ch);
    };
    try {
      if ("command" in spec) lease.client.exec(spec.command, done);
      else lease.client.subsys(spec.subsystem, done);
    } catch (e) {
      lease.release();
      reject(new HostgateError("unavailable", `the SSH connection is gone: ${(e as Error).message}`));
    }
  });
}
