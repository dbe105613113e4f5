import type { Config } from "../config/schema.ts";
import type { DaemonClient } from "../ipc/client.ts";
import type { DescribeResult } from "../ipc/protocol.ts";
import { log } from "./common.ts";

/** The daemon as a front holds it. */
export interface FrontClient {
  client: DaemonClient;
  close: () => Promise<void>;
  /**
   * This build's catalogue when the front runs the embedded daemon itself but has not started it yet (the
   * front lists its tools from it); absent when the daemon must be asked.
   */
  described?: DescribeResult;
  /** Starts a deferred embedded daemon now, in the background (no-op otherwise, or when already started). */
  warm: () => void;
}

/**
 * The daemon the MCP front talks to, by the rule `hostgate approve` also follows (daemon/locate.ts): the
 * socket named by HOSTGATE_SOCKET or `daemon.socket` (with HOSTGATE_TOKEN / `daemon.token` for tcp://), else
 * this user's running embedded daemon, else a running system daemon, else the embedded daemon started here.
 * Same interface either way; the embedded one survives the exit of whichever front runs it.
 *
 * With `defer`, an embedded daemon this front would start is composed only when first needed or `warm()`ed
 * (the stdio front warms it after answering tools/list), so the handshake does not wait for it (issue 14,
 * cold start); `described` then carries what it will describe. Without a prebuilt table (running the
 * sources) it starts at once, as without `defer`.
 */
export async function openFrontClient(config: Config, env: NodeJS.ProcessEnv = process.env, skills: { install: boolean; exec: boolean } = { install: false, exec: false }, say: (line: string) => void = log, opts: { defer?: boolean } = {}): Promise<FrontClient> {
  const [{ locateDaemon }, { socketIsLive }] = await Promise.all([import("../daemon/locate.ts"), import("../ipc/server.ts")]);
  const where = await locateDaemon(config, socketIsLive, env);
  if (where.kind !== "embedded") {
    const { socketDaemonClient } = await import("../ipc/socket-client.ts");
    const client = socketDaemonClient(where.agent, env.HOSTGATE_TOKEN || config.daemon.token);
    say(`using the hostgate daemon at ${where.agent} (${where.reason}); approve with: hostgate approve <transaction_id>${where.admin ? ` (admin socket ${where.admin})` : " --socket <its admin socket>"}`);
    return { client, close: () => client.close(), warm: () => undefined };
  }
  const start = async (): Promise<{ client: DaemonClient; close(): Promise<void> }> => {
    const { startEmbeddedDaemon } = await import("../daemon/embedded.ts");
    const embedded = await startEmbeddedDaemon(config, { announce: say, skills });
    say(embedded.role === "daemon" ? `embedded daemon; approve with: hostgate approve <transaction_id> (admin socket ${embedded.adminSocket})` : `using this user's running embedded daemon at ${embedded.agentSocket}`);
    return { client: embedded.client, close: () => embedded.close() };
  };
  // Another front of this user already runs it: joining costs a socket connect, nothing to defer.
  const running = await socketIsLive(where.agent);
  const described = opts.defer && !running ? await (await import("../daemon/describe-build.ts")).describeThisBuild() : null;
  if (!described) {
    const now = await start();
    return { ...now, warm: () => undefined };
  }
  return { ...deferred(start, say), described };
}

/**
 * A client whose daemon starts on the first call or `warm()`. A start that fails answers that call (and
 * every call until a start succeeds: each tries again) `unavailable` with the reason, which stderr gets too;
 * the front keeps serving.
 */
function deferred(start: () => Promise<{ client: DaemonClient; close(): Promise<void> }>, say: (line: string) => void): Omit<FrontClient, "described"> {
  let starting: Promise<{ client: DaemonClient; close(): Promise<void> }> | null = null;
  let closed = false;
  const ready = (): Promise<{ client: DaemonClient; close(): Promise<void> }> => {
    starting ??= start().catch((err: unknown) => {
      starting = null;
      say(`the embedded daemon could not start: ${(err as Error).message}`);
      throw err;
    });
    return starting;
  };
  const client: DaemonClient = {
    call: async (method, params, callOpts) => {
      let daemon;
      try {
        daemon = await ready();
      } catch (err) {
        return { ok: false, error: { code: "unavailable", message: `The embedded daemon could not start: ${(err as Error).message}`, hint: "Run `hostgate doctor` in a terminal; the MCP server's stderr log has the details." } };
      }
      return daemon.client.call(method, params, callOpts);
    },
    close: async () => {
      closed = true;
      const daemon = await starting?.catch(() => null);
      await daemon?.close();
    },
  };
  return {
    client,
    close: () => client.close(),
    warm: () => { if (!closed) setImmediate(() => { if (!closed) void ready().catch(() => undefined); }); },
  };
}
