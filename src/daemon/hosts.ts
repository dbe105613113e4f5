import { homedir, userInfo } from "node:os";
import { join } from "node:path";
import { InventoryCache } from "../adapters/inventory/cache.ts";
import { dnsLookup } from "../adapters/inventory/dns-lookup.ts";
import { SshConfigProvider } from "../adapters/inventory/ssh-config.ts";
import { SshExecutor } from "../adapters/exec-ssh/ssh-executor.ts";
import { LocalExecutor } from "../adapters/exec-local.ts";
import { Sandboxes } from "../app/sandbox.ts";
import { describeSandbox } from "../core/sandbox/confine.ts";
import { localConfineHelper, uploadableConfineHelper } from "../adapters/confine-helper.ts";
import { SftpUploader } from "../adapters/sftp-upload.ts";
import { KnownHosts } from "../adapters/exec-ssh/host-keys.ts";
import { Inventory, type Backend } from "../app/inventory.ts";
import { CallerSlots, type ExecSettings } from "../app/exec-on-host.ts";
import { ExecConfigSchema, InventoryConfigSchema, ProviderConfigSchema, RiskConfigSchema, type ExecConfig } from "../config/hosts.ts";
import type { z } from "zod";
import type { DaemonMode } from "./paths.ts";
import { inventoryProvider } from "./inventory-providers.ts";
import type { Finding } from "./feature.ts";

/**
 * Composition of the hosts feature (inventory, SSH executor, sandboxes, exec gate settings) from `inventory.*`,
 * `exec.*` and `risk.*`; the policy engine is its own service (daemon/policy.ts). With no inventory configured the user's ~/.ssh/config and ~/.ssh/known_hosts are
 * the backends. Embedded mode authenticates with SSH_AUTH_SOCK and the user's keys; the system daemon uses its
 * own key and known_hosts under its state directory (`<state>/ssh/id_ed25519`, `<state>/ssh/known_hosts`).
 */

export interface HostsConfig {
  inventory?: z.input<typeof InventoryConfigSchema> | undefined;
  exec?: z.input<typeof ExecConfigSchema> | undefined;
  risk?: z.input<typeof RiskConfigSchema> | undefined;
}

export interface ComposedHosts {
  inventory: Inventory;
  executor: SshExecutor;
  /** The daemon's own host (`local`). */
  local: LocalExecutor;
  /** Which sandbox each host has (probed once per host, kept 10 minutes). */
  sandboxes: Sandboxes;
  /** exec_on_host calls running per caller. */
  slots: CallerSlots;
  settings: ExecSettings;
  exec: ExecConfig;
  /** The login user when neither the inventory nor ssh_config names one. */
  default_user: string;
  /**
   * Doctor findings: `warn` for the loud ones (risk.disabled, trust on first use, no sandbox on the daemon's own
   * host). Probes the local sandbox once. The policy's findings are the policy service's.
   */
  doctor(): Promise<Finding[]>;
  close(): void;
}

function expand(p: string, home: string): string {
  return p.startsWith("~/") ? join(home, p.slice(2)) : p;
}

function localUser(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env.USER ?? "root";
  }
}

/** Builds the hosts feature. Throws a zod error for a config section that does not parse (strict). */
export function composeHosts(raw: HostsConfig, opts: { mode: DaemonMode; stateDir: string; hideDirs?: readonly string[]; env?: NodeJS.ProcessEnv; onTrustedFirstUse?: (name: string, fp: string) => void }): ComposedHosts {
  const env = opts.env ?? process.env;
  const home = homedir();
  const inv = InventoryConfigSchema.parse(raw.inventory ?? {});
  const exec = ExecConfigSchema.parse(raw.exec ?? {});
  const risk = RiskConfigSchema.parse(raw.risk ?? {});
  const defaulted = inv.providers === undefined;
  const providerConfigs = inv.providers ?? [ProviderConfigSchema.parse({ kind: "ssh_config" }), ProviderConfigSchema.parse({ kind: "known_hosts" })];
  const backends: Backend[] = providerConfigs.map((c) => ({ provider: inventoryProvider(c, home), timeout_ms: c.timeout_ms, cache_ttl_s: c.cache_ttl, cache_dir: c.cache_dir ? expand(c.cache_dir, home) : undefined }));
  const sshConfig = backends.find((b) => b.provider instanceof SshConfigProvider)?.provider as SshConfigProvider | undefined;
  const system = opts.mode === "system";
  const knownHosts = (exec.known_hosts ?? (system ? [join(opts.stateDir, "ssh", "known_hosts"), "/etc/ssh/ssh_known_hosts"] : ["~/.ssh/known_hosts", "/etc/ssh/ssh_known_hosts"])).map((p) => expand(p, home));
  // Machine identity (issue 19): DNS as ssh would resolve, and the known_hosts files exec checks keys against
  // (read at each resolution, like each dial; unreadable ones fail the resolution closed).
  const inventory = new Inventory({
    backends, defaulted, cache: new InventoryCache(), resolveAlias: sshConfig ? (n) => sshConfig.resolve(n) : null,
    identity: { lookup: dnsLookup({ timeout_ms: exec.connect_timeout_ms, ttl_ms: 60_000 }), keyTwins: (h, p) => KnownHosts.loadFresh(knownHosts).keyTwins(h, p) },
  });

  const identities = (exec.identity_files ?? (system ? [join(opts.stateDir, "ssh", "id_ed25519")] : ["~/.ssh/id_ed25519", "~/.ssh/id_ecdsa", "~/.ssh/id_rsa"])).map((p) => expand(p, home));
  const agent = exec.use_agent && !system ? env.SSH_AUTH_SOCK : undefined;
  const defaultUser = exec.user ?? localUser();
  const executor = new SshExecutor({
    known_hosts: knownHosts,
    host_keys: exec.host_keys,
    default_user: defaultUser,
    default_identity_files: identities,
    agent: agent || undefined,
    connect_timeout_ms: exec.connect_timeout_ms,
    idle_ms: exec.idle_close_ms,
    max_sessions: exec.max_sessions,
    ...(opts.onTrustedFirstUse ? { onTrustedFirstUse: opts.onTrustedFirstUse } : {}),
  });
  const settings: ExecSettings = {
    allow_unverified: exec.allow_unverified,
    risk_disabled: risk.disabled,
    max_output_bytes: exec.max_output_bytes,
    fanout_concurrency: exec.fanout_concurrency,
    max_hosts: exec.max_hosts,
    max_timeout_sec: exec.max_timeout_sec,
    max_per_caller: exec.max_per_caller,
    // The local sandbox also hides the daemon's own state, sockets and configuration, wherever they are.
    local_hide_dirs: opts.hideDirs ?? [opts.stateDir],
  };
  // The daemon's own host confines with the in-tree helper when the build made one only root can change; SSH
  // hosts with a root login and the build's architecture get the same build in their login's cache (SFTP).
  const helper = localConfineHelper();
  const uploadable = uploadableConfineHelper();
  const sandboxes = new Sandboxes({
    local_helper: "path" in helper ? helper.path : undefined,
    remote_helper: "bytes" in uploadable ? { ...uploadable, uploader: new SftpUploader(executor.pool) } : undefined,
    accept_login_groups: exec.accept_login_groups,
  });
  const slots = new CallerSlots();
  const local = new LocalExecutor();
  return {
    inventory,
    executor,
    local,
    sandboxes,
    slots,
    settings,
    exec,
    default_user: defaultUser,
    doctor: async () => {
      const out: Finding[] = [];
      const inv2 = inventory.listBackends();
      out.push({ level: "ok", check: "inventory", message: `${inv2.backends.map((b) => `${b.name} (${b.kind})`).join(", ")}${inv2.defaulted ? " — defaults: no inventory configured" : ""}` });
      if (risk.disabled) out.push({ level: "warn", check: "risk.disabled", message: "RISK ENGINE BYPASSED for exec (risk.disabled: true): only critical commands are still refused. Trusted automation only." });
      if (exec.host_keys === "tofu") out.push({ level: "warn", check: "exec.host_keys", message: "trust on first use: unknown host keys are recorded without checking (audited)" });
      const sb = await sandboxes.forHost({ key: "local", executor: local, target: { host: "localhost", port: 0 } }).catch((e: unknown) => e as Error);
      out.push(sb instanceof Error
        ? { level: "warn", check: "sandbox", message: `local: the sandbox probe failed (${sb.message}); unapproved commands are refused here` }
        : { level: sb.mechanism ? "ok" : "warn", check: "sandbox", message: `local: ${describeSandbox(sb)}${"reason" in helper && sb.facts.uid === 0 ? ` (hostgate-confine helper ${helper.reason})` : ""}. Remote hosts are probed at their first exec_on_host (get_host_details { probe: true } shows theirs)` });
      out.push("bytes" in uploadable
        ? { level: "ok", check: "sandbox.remote", message: `SSH hosts with a root login on ${uploadable.arch} get hostgate-confine (sha256 ${uploadable.sha256.slice(0, 12)}…, sent over SFTP to ~/.cache/hostgate of the login); others use bubblewrap or systemd-run` }
        : { level: "ok", check: "sandbox.remote", message: `SSH hosts use bubblewrap or systemd-run: the hostgate-confine helper is ${uploadable.reason}` });
      for (const [key, sb] of await sandboxes.probed()) {
        if (key !== "local") out.push({ level: sb.mechanism ? "ok" : "warn", check: "sandbox.host", message: `${key}: ${describeSandbox(sb)}` });
      }
      out.push({ level: "ok", check: "ssh", message: `known_hosts ${knownHosts.join(", ")}; keys ${identities.join(", ")}${agent ? "; ssh-agent" : ""}; ${executor.connections} pooled connections` });
      return out;
    },
    close: () => { executor.close(); },
  };
}
