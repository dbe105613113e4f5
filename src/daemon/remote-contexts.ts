import { groupIdIn } from "../core/host/passwd.ts";
import type { SshPool } from "../adapters/exec-ssh/pool.ts";
import { sshChangePorts } from "../adapters/ssh-change-ports.ts";
import { sshHostConnection } from "../adapters/ssh-connection.ts";
import { sshActionContext } from "../adapters/ssh-context.ts";
import { SshPreviewProbe } from "../adapters/host-ssh-preview.ts";
import { sessionExecOpener } from "../adapters/remote-exec.ts";
import { sandboxTarget } from "../app/exec-on-host.ts";
import type { HostsFeature } from "../app/deps.ts";
import type { RemoteContextFactory } from "../app/hosts.ts";
import type { Capability } from "../core/catalogue/needs.ts";
import type { LogReadPolicy } from "../core/catalogue/log-policy.ts";
import { HostgateError } from "../core/errors.ts";
import type { Clock } from "../ports/host-probe.ts";

/** What {@link sshRemoteContexts} needs: the hosts feature (inventory, default login) and its SSH pool. */
export interface SshRemoteContextsOptions {
  /** The hosts feature (loaded on first use) with the pool its SshExecutor dials through (`SshExecutor.pool`). */
  feature: () => Promise<{ hosts: HostsFeature; pool: SshPool }>;
  /** The daemon's `logs.readable` (a `group` policy's gid is looked up again in the remote /etc/group). */
  logs_readable: LogReadPolicy;
  clock: Clock;
}

/**
 * The default {@link RemoteContextFactory} (issue 20): one inventory host's typed ports over SSH, on the SAME
 * pooled connections as exec_on_host. The route is exec_on_host's (the record's endpoint, its ProxyJump hops
 * resolved through the inventory, the login from the record else `exec.user`); `become` comes from the record
 * (the inventory, never the host). Builds the probe and distro family (`sshActionContext`), the probe changes read
 * through (`preview_host`: adapters/host-ssh-preview.ts, root through `sudo -n` for what the login may not read), the mutator and
 * the unit managers (`sshChangePorts`: remote D-Bus through systemd-stdio-bridge, else systemctl; a host without
 * systemd offers files + mutate only), and its `connection` (adapters/ssh-connection.ts: the audit facts, the
 * privilege check plans make, the systemd path doctor and describe show). `close` ends the channels the context keeps (the unit managers' bridges, the process reader); the connection stays pooled.
 * Rejects `unavailable` for a record without an SSH endpoint, else with the pool's dial errors
 * (`unreachable`, `host_key_unknown`, `host_key_mismatch`, …).
 */
export function sshRemoteContexts(o: SshRemoteContextsOptions): RemoteContextFactory {
  return async (record) => {
    const ssh = record.ssh;
    if (!ssh) throw new HostgateError("unavailable", `${record.name} has no SSH endpoint in the inventory, so its typed actions cannot reach it.`, { hint: "Give the host an address reachable over SSH in the inventory.", details: { host: record.name } });
    const { hosts, pool } = await o.feature();
    const t = await sandboxTarget(record, hosts);
    const route = { target: t.target, jumps: t.jumps };
    const built = await sshActionContext({ pool, route, name: record.name, logs_readable: o.logs_readable, clock: o.clock });
    const login = ssh.user ?? hosts.default_user;
    const become = ssh.become ?? "none";
    const change = await sshChangePorts({ session: built.session, name: record.name, login, become });
    const preview_host = new SshPreviewProbe({ login: built.ctx.host, open: sessionExecOpener(built.session), host: record.name, loginUser: login, become });
    let logs = o.logs_readable;
    if (logs.kind === "group") {
      const text = await built.ctx.host.readText("/etc/group").catch(() => "");
      logs = { ...logs, gid: groupIdIn(text, logs.name) };
    }
    const capabilities: Capability[] = change.systemd.kind === "none" ? ["files", "mutate"] : ["files", "systemd", "mutate"];
    const connection = sshHostConnection({ identity: () => built.session.identity(), mutator: change.mutator, systemd: change.systemd, clock: o.clock });
    return {
      ctx: { ...built.ctx, units: change.units, mutator: change.mutator, preview_host, logs_readable: logs, capabilities, connection },
      hostname: built.hostname,
      close: () => {
        built.probe.close();
        void change.units.close().catch(() => undefined);
      },
    };
  };
}
