import type { HostRecord } from "../../core/inventory/record.ts";
import type { ProviderConfig } from "../../config/hosts.ts";
import type { BackendInfo, InventoryProvider } from "../../ports/inventory-provider.ts";
import { defaultSshConfigFiles, expandIdentityFile, listSshConfig, PROXY_COMMAND_REFUSAL, resolveSshHost, type SshConfigFile } from "./ssh-config-resolve.ts";

type SshConfigConfig = Extract<ProviderConfig, { kind: "ssh_config" }>;

/** Expands a leading `~/` against the daemon user's home. */
function fileList(cfg: SshConfigConfig, home: string): SshConfigFile[] {
  if (!cfg.files) return defaultSshConfigFiles();
  return cfg.files.map((f, i) => ({ path: f.startsWith("~/") ? `${home}${f.slice(1)}` : f, kind: i === 0 ? "user" : "system" }));
}

/**
 * The OpenSSH client config (`kind: ssh_config`): every concrete `Host` alias, resolved as `ssh <alias>`
 * would resolve it (ssh-config-resolve.ts). Wildcard patterns are not hosts and are not listed. A host's tags
 * are the backend's `tags` plus those of `# hostgate: tags=…` comments in the blocks that apply to it. A host
 * that must not be dialed (ProxyCommand, an Include that cannot be used, a malformed hostgate comment) is
 * still listed, with `meta.errors` and an `ssh.refusal`; an Include that cannot be listed is named in
 * `list_backends` notes.
 */
export class SshConfigProvider implements InventoryProvider {
  readonly info: BackendInfo;
  readonly files: SshConfigFile[];
  private readonly tags: string[];
  private readonly become: "none" | "sudo" | undefined;

  constructor(cfg: SshConfigConfig, home: string) {
    this.files = fileList(cfg, home);
    this.tags = cfg.tags;
    this.become = cfg.become;
    this.info = { kind: "ssh_config", name: cfg.name ?? "ssh_config", hint: this.files.map((f) => f.path).join(", "), notes: [NOTE] };
  }

  cacheKey(): string {
    return this.info.name;
  }

  /** Resolves one alias (also one not listed on a Host line, as `ssh name` would). */
  resolve(alias: string): HostRecord {
    const r = resolveSshHost(alias, this.files);
    const meta: Record<string, string> = {};
    if (r.proxy_jump.length > 0) meta.proxy_jump = r.proxy_jump.join(",");
    if (r.warnings.length > 0) meta.warnings = r.warnings.join("; ");
    if (r.errors.length > 0) meta.errors = r.errors.join("; ");
    const proxyCommand = r.errors.some((e) => e.startsWith(PROXY_COMMAND_REFUSAL));
    return {
      name: alias,
      primary_ip: r.hostname,
      provider: "ssh_config",
      backend: this.info.name,
      meta,
      tags: [...new Set([...this.tags, ...r.tags])],
      ssh: {
        host: r.hostname, port: r.port, user: r.user, identity_files: r.identity_files.map((f) => expandIdentityFile(f, r)), proxy_jump: r.proxy_jump, become: this.become,
        ...(r.errors.length > 0 ? {
          refusal: {
            message: `${alias}: ${r.errors.join("; ")}`,
            hint: proxyCommand ? "Write the bastion as ProxyJump (e.g. ProxyJump bastion.example.com) for this host; hostgate verifies each hop's host key." : "Fix the ssh config file named above (`ssh -G <alias>` shows how ssh reads it); other aliases are unaffected.",
          },
        } : {}),
      },
    };
  }

  list(): Promise<HostRecord[]> {
    const { aliases, problems } = listSshConfig(this.files);
    this.info.notes.splice(0, this.info.notes.length, NOTE, ...problems);
    return Promise.resolve(aliases.map((a) => this.resolve(a.alias)));
  }
}

const NOTE = "Match exec blocks are never evaluated (nothing is run to list hosts)";
