import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import type { Readable } from "node:stream";
import ssh2 from "ssh2";
import type { AnyAuthMethod, AuthenticationType, Client as SshClient, ServerHostKeyAlgorithm } from "ssh2";
import { HostgateError } from "../../core/errors.ts";
import { validateSshHost, validateSshPort, validateSshUser } from "../../core/inventory/target.ts";
import type { ExecEndpoint } from "../../ports/executor.ts";
import { appendKnownHost, hostKeyError, KnownHosts, type HostKeyVerdict } from "./host-keys.ts";

/**
 * Opening one verified SSH connection (optionally through ProxyJump hosts, each verified against its own
 * name: corpus S012). The host key is checked during key exchange, before any authentication (S009); only
 * public-key authentication is offered (agent, then key files); never passwords, never agent forwarding.
 */

/** One hop: the Executor port's endpoint. `user` defaults to the dial options' default user. */
export type Hop = ExecEndpoint;

/** How to authenticate and check keys; shared by every connection of an executor. */
export interface DialOptions {
  /** known_hosts files read at every dial (user file first); a missing file is empty, an unreadable one fails. */
  known_hosts: readonly string[];
  /** `strict` refuses unknown keys; `tofu` appends an unknown key to `known_hosts[0]` and connects. */
  host_keys: "strict" | "tofu";
  /** Login user when a hop names none. */
  default_user: string;
  /** Key files tried after the agent when a hop names none. */
  default_identity_files: readonly string[];
  /** ssh-agent socket (embedded mode: SSH_AUTH_SOCK), or undefined for none. */
  agent?: string | undefined;
  /** Handshake timeout, milliseconds. */
  connect_timeout_ms: number;
  /** Called when trust-on-first-use records a key (for the audit). */
  onTrustedFirstUse?: (name: string, fingerprint: string) => void;
}

const HOST_KEY_TYPES: ServerHostKeyAlgorithm[] = ["ssh-ed25519", "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521", "rsa-sha2-512", "rsa-sha2-256", "ssh-rsa"];

function expandHome(p: string): string {
  return p.startsWith("~/") ? `${homedir()}${p.slice(1)}` : p;
}

function readKeys(files: readonly string[]): { path: string; key: Buffer }[] {
  const out: { path: string; key: Buffer }[] = [];
  for (const f of files) {
    try {
      out.push({ path: f, key: readFileSync(expandHome(f)) });
    } catch {
      // ssh skips identity files that do not exist; so do we.
    }
  }
  return out;
}

/** Host-key algorithms to offer: the types known_hosts holds for this host first (as OpenSSH orders them). */
function keyAlgorithms(known: string[]): ServerHostKeyAlgorithm[] {
  const first = HOST_KEY_TYPES.filter((t) => known.includes(t) || (t.startsWith("rsa-sha2") && known.includes("ssh-rsa")));
  return [...first, ...HOST_KEY_TYPES.filter((t) => !first.includes(t))];
}

/** Connects one hop over `sock` (or TCP when absent). Resolves with a ready client; rejects with a HostgateError. */
function connectHop(hop: Hop, opts: DialOptions, sock: Readable | undefined): Promise<SshClient> {
  const host = validateSshHost(hop.host);
  const port = validateSshPort(hop.port);
  const user = validateSshUser(hop.user ?? opts.default_user);
  const known = KnownHosts.load(opts.known_hosts);
  const keys = readKeys(hop.identity_files && hop.identity_files.length > 0 ? hop.identity_files : opts.default_identity_files);
  const methods: AnyAuthMethod[] = [];
  if (opts.agent) methods.push({ type: "agent", username: user, agent: opts.agent });
  for (const k of keys) methods.push({ type: "publickey", username: user, key: k.key });
  return new Promise((resolve, reject) => {
    const client = new ssh2.Client();
    let verdict: HostKeyVerdict | null = null;
    let settled = false;
    const fail = (e: HostgateError): void => {
      if (settled) return;
      settled = true;
      client.end();
      reject(e);
    };
    client.once("ready", () => {
      if (settled) return;
      settled = true;
      if (!sock) client.setNoDelay(true);
      resolve(client);
    });
    // `on`, not `once`: a client ended during its handshake can emit a second error (e.g. "Connection lost before
    // handshake" after a timeout), which without a listener would crash the process; `fail` settles once.
    client.on("error", (err: Error & { level?: string }) => {
      if (verdict && verdict.status !== "known" && !(verdict.status === "unknown" && opts.host_keys === "tofu")) {
        fail(hostKeyError(verdict, host, port));
        return;
      }
      const auth = err.level === "client-authentication";
      fail(new HostgateError("unreachable", `${user}@${host}:${port}: ${auth ? "authentication failed (public key / agent)" : err.message}`, {
        hint: auth ? "Check that the daemon's key (agent or exec.identity_files) is in the host's authorized_keys for this user." : "Check the address, port and that sshd runs; the other hosts are unaffected.",
        details: { host, port, user, stage: auth ? "authentication" : "connect" },
      }));
    });
    client.once("close", () => {
      fail(new HostgateError("unreachable", `${host}:${port}: connection closed during the handshake`, { hint: "Check that sshd runs and accepts this client." }));
    });
    const remaining = [...methods];
    client.connect({
      host,
      port,
      ...(sock ? { sock } : {}),
      username: user,
      readyTimeout: opts.connect_timeout_ms,
      keepaliveInterval: 5000,
      keepaliveCountMax: 3,
      algorithms: { serverHostKey: keyAlgorithms(known.keyTypesFor(host, port)) },
      hostVerifier: (blob: Buffer): boolean => {
        presented.set(client, { host, port, blob });
        verdict = known.verify(host, port, blob);
        if (verdict.status === "known") return true;
        if (verdict.status === "unknown" && opts.host_keys === "tofu" && opts.known_hosts[0]) {
          appendKnownHost(opts.known_hosts[0], host, port, blob);
          opts.onTrustedFirstUse?.(verdict.name, verdict.fingerprint);
          return true;
        }
        return false;
      },
      authHandler: (_left: AuthenticationType[], _partial: boolean, next: (m: AnyAuthMethod | false) => void) => {
        const m = remaining.shift();
        next(m ?? false);
      },
    } as ssh2.ConnectConfig);
  });
}

/** The key each connected hop presented (for re-checking a pooled connection against known_hosts). */
const presented = new WeakMap<SshClient, PresentedKey>();

/** A host key a connection was verified with: the name it was checked for and the raw key blob. */
export interface PresentedKey {
  host: string;
  port: number;
  blob: Buffer;
}

/**
 * Re-checks the keys a pooled connection was verified with against the known_hosts files as they are now (an
 * entry removed, replaced or marked @revoked since): null when every hop is still `known` (or, under trust on
 * first use, still not contradicted), else the refusal. The files are re-read only when their size or mtime
 * changed (KnownHosts.loadFresh).
 */
export function recheckKeys(keys: readonly PresentedKey[], opts: DialOptions): HostgateError | null {
  const known = KnownHosts.loadFresh(opts.known_hosts);
  for (const k of keys) {
    const v = known.verify(k.host, k.port, k.blob);
    if (v.status === "known" || (v.status === "unknown" && opts.host_keys === "tofu")) continue;
    return hostKeyError(v, k.host, k.port);
  }
  return null;
}

/**
 * Dials `target` through `jumps` (in order). Returns the target's client and a close function that ends every
 * hop. Throws HostgateError `unreachable`, `host_key_unknown`, `host_key_mismatch` or `invalid_target`.
 */
export async function dial(target: Hop, jumps: readonly Hop[], opts: DialOptions): Promise<{ client: SshClient; close: () => void; keys: PresentedKey[] }> {
  const opened: SshClient[] = [];
  const closeAll = (): void => {
    for (const c of opened.reverse()) c.end();
  };
  try {
    let sock: Readable | undefined;
    const chain = [...jumps, target];
    for (let i = 0; i < chain.length; i++) {
      const hop = chain[i]!;
      const client = await connectHop(hop, opts, sock);
      opened.push(client);
      const next = chain[i + 1];
      if (next) {
        const nextHost = validateSshHost(next.host);
        sock = await new Promise<Readable>((resolve, reject) => {
          client.forwardOut("127.0.0.1", 0, nextHost, next.port, (err, stream) => {
            if (err) reject(new HostgateError("unreachable", `jump host ${hop.host} could not reach ${nextHost}:${next.port}: ${err.message}`, { hint: "Check ProxyJump and that the bastion allows TCP forwarding." }));
            else resolve(stream);
          });
        });
      }
    }
    const client = opened[opened.length - 1]!;
    return { client, close: closeAll, keys: opened.map((c) => presented.get(c)).filter((k): k is PresentedKey => k !== undefined) };
  } catch (e) {
    closeAll();
    throw e;
  }
}
