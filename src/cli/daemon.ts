import { join } from "node:path";
import type { Command } from "commander";
import { EXIT, loadConfigOrExit, log, startTracingOrExit } from "./common.ts";
import { settleV8ForLongRunning } from "./v8-tuning.ts";
import { lookupGroupId, takeRootPrimaryGroup } from "../adapters/os-groups.ts";
import { adminSocketAccess, recordSocketFacts } from "../daemon/socket-facts.ts";
import { approverOf } from "../core/approver.ts";

/**
 * `hostgate daemon`: the privileged process (run it as a systemd service). Serves agent.sock (mode 0660) for
 * the MCP front and admin.sock (mode 0600) for `hostgate approve`, plus an optional tcp:// listener with a
 * token (daemon.listen + daemon.token / HOSTGATE_TOKEN). vsock:// is refused with an explanation.
 */
export function registerDaemonCommand(program: Command): void {
  program
    .command("daemon")
    .description("Run the privileged hostgate daemon (agent.sock, admin.sock, optional tcp:// with a token).")
    .option("-c, --config <path>", "configuration file (must exist)")
    .option("--listen <uri>", "extra agent listener: tcp://HOST:PORT (needs a token)")
    .action(async (opts: { config?: string; listen?: string }) => {
      const config = loadConfigOrExit(opts.config);
      // Before anything is created: files of the daemon and its actions are root:root, never the unit's group.
      const startGid = takeRootPrimaryGroup();
      if (startGid !== null) log(`started with primary group ${startGid} (the unit's Group=): the agent socket gets that group unless daemon.agent_group names one; the daemon runs with group root, so what it and its actions create is root:root`);
      settleV8ForLongRunning();
      const tracer = await startTracingOrExit(config, "daemon");
      const [{ composeDaemon }, { serveIpc, parseListenUri }] = await Promise.all([import("../daemon/compose.ts"), import("../ipc/server.ts")]);
      const listen = opts.listen ?? config.daemon.listen;
      const token = process.env.HOSTGATE_TOKEN || config.daemon.token;
      let tcp: ReturnType<typeof parseListenUri> | null = null;
      try {
        tcp = listen ? parseListenUri(listen, token) : null;
      } catch (err) {
        log((err as Error).message);
        process.exit(EXIT.usage);
      }
      const composed = await composeDaemon(config, { mode: "system", announce: log, tracer });
      try {
        composed.openStores();
      } catch (err) {
        log(`cannot open state in ${composed.stateDir}: ${(err as Error).message}`);
        process.exit(EXIT.failure);
      }
      const dispatcher = composed.service.dispatcher;
      const { readPeerCredentials } = await import("../adapters/peer-credentials.ts");
      const serveOpts = { peerCredentials: readPeerCredentials };
      const agentPath = config.daemon.agent_socket ?? join(composed.runtimeDir, "agent.sock");
      const adminPath = config.daemon.admin_socket ?? join(composed.runtimeDir, "admin.sock");
      const listeners: import("../ipc/server.ts").IpcListener[] = [];
      // daemon.agent_group / admin_group: the sockets' group is set at every start (no manual chgrp).
      const group = (name: string | undefined, key: string): number | undefined => {
        if (name === undefined) return undefined;
        const gid = lookupGroupId(name);
        if (gid === null) {
          log(`${key}: no group named ${JSON.stringify(name)} in /etc/group; create it (groupadd ${name}) or change ${key}.`);
          process.exit(EXIT.usage);
        }
        return gid;
      };
      const agentGid = group(config.daemon.agent_group, "daemon.agent_group") ?? startGid ?? undefined;
      const adminGid = group(config.daemon.admin_group, "daemon.admin_group");
      try {
        listeners.push(await serveIpc({ kind: "unix", path: agentPath, mode: 0o660, gid: agentGid }, "agent", dispatcher, serveOpts));
        listeners.push(await serveIpc({ kind: "unix", path: adminPath, mode: adminGid === undefined ? 0o600 : 0o660, gid: adminGid }, "admin", dispatcher, serveOpts));
        recordSocketFacts(composed.service.deps.facts, agentPath, adminPath);
        // What the plan's next text tells the model to ask for: sudo unless the admin socket admits more than root.
        composed.service.deps.approver = approverOf("system", adminSocketAccess(adminPath, config.daemon.admin_group, adminGid));
        if (tcp?.kind === "tcp") listeners.push(await serveIpc(tcp, "agent", dispatcher));
      } catch (err) {
        log((err as Error).message);
        await Promise.all(listeners.map((l) => l.close()));
        await composed.close();
        process.exit(EXIT.failure);
      }
      log(`daemon ready: state ${composed.stateDir}; ${listeners.map((l) => l.address).join(", ")}`);
      const stop = (): void => {
        void Promise.all(listeners.map((l) => l.close())).then(() => composed.close()).finally(() => tracer.shutdown()).finally(() => process.exit(EXIT.ok));
      };
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
      // SIGHUP reloads the exec policies (config is otherwise read once); a broken set keeps the old one.
      process.on("SIGHUP", () => { void composed.reloadPolicy().then(log, (err: unknown) => { log(`SIGHUP: ${(err as Error).message}`); }); });
    });
}
