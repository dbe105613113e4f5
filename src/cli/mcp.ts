import type { Command } from "commander";
import { EXIT, loadConfigOrExit, log, startTracingOrExit } from "./common.ts";
import { settleV8ForLongRunning } from "./v8-tuning.ts";

/** Longest a front spends shutting down after its client closed stdin, in milliseconds. */
const SHUTDOWN_DEADLINE_MS = 500;

/** How much longer a front with tracing on may take to shut down: the exporter's last POST, in milliseconds. */
const TRACE_FLUSH_MS = 3_000;

/** When a deferred embedded daemon starts at the latest, in milliseconds after the front is ready. */
const WARM_AFTER_MS = 1_000;

/** `hostgate mcp`: the MCP server over stdio, with the embedded daemon. */
export function registerMcpCommand(program: Command): void {
  program
    .command("mcp")
    .description("Run the MCP server over stdio (for AI clients that spawn it). Logs go to stderr.")
    .option("-c, --config <path>", "configuration file (must exist)")
    .option("--allow-install", "offer skills_install_apply and skills_sync_apply (read once at start)")
    .option("--allow-exec", "offer skills_execute for entrypoints an administrator granted (read once at start)")
    .action(async (opts: { config?: string; allowInstall?: boolean; allowExec?: boolean }) => {
      // stdout carries only JSON-RPC: anything a module prints with console.log goes to stderr (M030).
      console.log = console.error;
      console.info = console.error;
      console.debug = console.error;
      const config = loadConfigOrExit(opts.config);
      const tracer = await startTracingOrExit(config, "front");
      // Loaded on demand: clients spawn stdio servers often, and every import is start-up time.
      const [{ serveStdio }, { openFrontClient }, { createServerFactory }, { FramedStdioTransport }] = await Promise.all([
        import("@modelcontextprotocol/server/stdio"),
        import("./front-client.ts"),
        import("../mcp/server.ts"),
        import("../mcp/transports/stdio.ts"),
      ]);
      const gates = { install: opts.allowInstall === true, exec: opts.allowExec === true };
      let front;
      try {
        front = await openFrontClient(config, process.env, gates, log, { defer: true, tracer });
      } catch (err) {
        log((err as Error).message);
        process.exit(EXIT.failure);
      }
      const { client, close, described, warm, daemon, configOf } = front;
      let factory;
      try {
        let tools, on;
        ({ factory, tools, gates: on } = await createServerFactory(client, config, { transport: "stdio", gates, warn: log, described, tracer, configOf }));
        // One start notice: version, how many tools, which daemon (issue 22), which gates are on.
        const { VERSION } = await import("../version.ts");
        log(`hostgate ${VERSION}: serving ${tools.length} tools over stdio from ${daemon} (skills install ${on.install ? "on" : "off"}, skills exec ${on.exec ? "on" : "off"})`);
      } catch (err) {
        log((err as Error).message);
        process.exit(EXIT.usage);
      }
      const transport = new FramedStdioTransport();
      const handle = serveStdio(() => factory(), { transport, onerror: (e) => { log(`stdio: ${e.message}`); } });
      // Once the client has its tool list, or after WARM_AFTER_MS whatever the client does: V8 takes its
      // long-running setting and a deferred embedded daemon starts (a tool call starts it at once). The
      // handshake waits for neither.
      const settle = (): void => { settleV8ForLongRunning(); warm(); };
      transport.onanswered = (method) => { if (method === "tools/list") settle(); };
      setTimeout(settle, WARM_AFTER_MS).unref();
      // stdin EOF ends the front whatever is pending: in-flight requests are cancelled by handle.close(), the
      // daemon connection (or the embedded daemon) is closed, and a stuck close cannot hold the process.
      // With tracing on, the last spans are flushed too (at most TRACE_FLUSH_MS more).
      transport.onclose = () => {
        setTimeout(() => process.exit(EXIT.ok), SHUTDOWN_DEADLINE_MS + (tracer.enabled ? TRACE_FLUSH_MS : 0)).unref();
        void handle.close().then(close).finally(() => tracer.shutdown()).finally(() => process.exit(EXIT.ok));
      };
    });
}
