import type { Command } from "commander";
import { EXIT, loadConfigOrExit, log, parsePort, startTracingOrExit } from "./common.ts";
import { endWithNpmParent } from "./parent-watch.ts";
import { settleV8ForLongRunning } from "./v8-tuning.ts";

/** The longest `serve` waits for its listeners and daemon to close after a stop signal, in milliseconds. */
const STOP_DEADLINE_MS = 5000;

/** `hostgate serve`: the MCP server over Streamable HTTP (default http://127.0.0.1:48000/mcp). */
export function registerServeCommand(program: Command): void {
  program
    .command("serve")
    .description("Run the MCP server over Streamable HTTP on loopback (default 127.0.0.1:48000), with the embedded daemon.")
    .option("-c, --config <path>", "configuration file (must exist)")
    .option("--host <address>", "bind address (non-loopback needs server.token or HOSTGATE_HTTP_TOKEN)")
    .option("--port <port>", "TCP port (0 picks a free one)", parsePort)
    .option("--allow-install", "offer skills_install_apply and skills_sync_apply (read once at start)")
    .option("--allow-exec", "offer skills_execute for entrypoints an administrator granted (read once at start)")
    .action(async (opts: { config?: string; host?: string; port?: number; allowInstall?: boolean; allowExec?: boolean }) => {
      const config = loadConfigOrExit(opts.config, { ...(opts.host === undefined ? {} : { host: opts.host }), ...(opts.port === undefined ? {} : { port: opts.port }) });
      settleV8ForLongRunning(); // an HTTP server's start-up is not on a client's path
      const tracer = await startTracingOrExit(config, "front");
      const [{ openFrontClient }, { createServerFactory }, { startHttpServer }] = await Promise.all([
        import("./front-client.ts"),
        import("../mcp/server.ts"),
        import("../mcp/transports/http.ts"),
      ]);
      const gates = { install: opts.allowInstall === true, exec: opts.allowExec === true };
      let front;
      try {
        front = await openFrontClient(config, process.env, gates, log, { tracer });
      } catch (err) {
        log((err as Error).message);
        process.exit(EXIT.failure);
      }
      const { client, close, daemon, configOf } = front;
      let started;
      try {
        const { factory, tools, gates: on } = await createServerFactory(client, config, { transport: "http", gates, warn: log, tracer, configOf });
        started = await startHttpServer(factory, config.server);
        log(`listening on ${started.url} (${tools.length} tools from ${daemon}; skills install ${on.install ? "on" : "off"}, skills exec ${on.exec ? "on" : "off"})`);
      } catch (err) {
        const inUse = (err as NodeJS.ErrnoException).code === "EADDRINUSE";
        log(`${(err as Error).message}${inUse ? ". Another server uses that port: pick another with --port N (0 = any free port) or server.port in the config." : ""}`);
        process.exit(EXIT.usage);
      }
      const clientUrl = clientUrlOf(started.url, process.env);
      log(`connect a client, e.g.: claude mcp add --transport http hostgate ${clientUrl}`);
      log("or in .mcp.json / .cursor/mcp.json: {\"mcpServers\":{\"hostgate\":{\"type\":\"http\",\"url\":\"" + clientUrl + "\"}}}");
      let stopping = false;
      const stop = (why: string): void => {
        if (stopping) return;
        stopping = true;
        log(`stopping (${why})`);
        // A close that hangs (a client holding a stream open) must not keep the process: exit anyway.
        setTimeout(() => { log("stopping: close did not finish within 5 s; exiting"); process.exit(EXIT.ok); }, STOP_DEADLINE_MS).unref();
        void started.close().then(close).finally(() => tracer.shutdown()).finally(() => process.exit(EXIT.ok));
      };
      process.once("SIGINT", () => { stop("SIGINT"); });
      process.once("SIGTERM", () => { stop("SIGTERM"); });
      // Under `npm start`: npm does not forward SIGHUP and may be killed outright; end with it (issue 22).
      endWithNpmParent(process.env, () => { stop("the npm that started it is gone"); });
    });
}

/**
 * The URL a client should use for a server listening at `url`. A wildcard listener becomes `<this host's
 * address>`; inside the container image (HOSTGATE_IN_IMAGE) the port clients reach is the one podman/docker
 * published (`-p 127.0.0.1:P:48000`), not the container's, so the notice names that (issue 25 re-trial).
 */
export function clientUrlOf(url: string, env: NodeJS.ProcessEnv): string {
  if (env.HOSTGATE_IN_IMAGE) return url.replace(/^(https?:\/\/)[^/]+/, "$1<the address and port you published with -p, e.g. 127.0.0.1:48000>");
  return url.replace("://0.0.0.0:", "://<this host's address>:").replace("://[::]:", "://<this host's address>:");
}
