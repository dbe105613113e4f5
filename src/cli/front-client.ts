import { isDeepStrictEqual } from "node:util";
import type { Config } from "../config/schema.ts";
import type { DaemonClient } from "../ipc/client.ts";
import type { DescribeResult, Outcome } from "../ipc/protocol.ts";
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
  const start = async (): Promise<Started> => {
    const { startEmbeddedDaemon } = await import("../daemon/embedded.ts");
    const embedded = await startEmbeddedDaemon(config, { announce: say, skills });
    say(embedded.role === "daemon" ? `embedded daemon; approve with: hostgate approve <transaction_id> (admin socket ${embedded.adminSocket})` : `using this user's running embedded daemon at ${embedded.agentSocket}`);
    return { client: embedded.client, close: () => embedded.close(), joined: () => embedded.role === "client", at: embedded.agentSocket };
  };
  // Another front of this user already runs it: joining costs a socket connect, nothing to defer.
  const running = await socketIsLive(where.agent);
  const described = opts.defer && !running ? await (await import("../daemon/describe-build.ts")).describeThisBuild() : null;
  if (!described) {
    const now = await start();
    return { ...now, warm: () => undefined };
  }
  return { ...deferred(start, described, say), described };
}

/** An embedded daemon as a front holds it: `joined` while another front (another process) runs it, at `at`. */
interface Started {
  client: DaemonClient;
  close(): Promise<void>;
  joined: () => boolean;
  at: string;
}

/**
 * A client whose daemon starts on the first call or `warm()`. A start that fails answers that call (and
 * every call until a start succeeds: each tries again) `unavailable` with the reason, which stderr gets too;
 * the front keeps serving.
 *
 * The tools were listed from this build's table (`listed`) before any daemon was asked. When another front
 * started this user's embedded daemon in the meantime, that daemon may be another hostgate build (an upgrade
 * in place while an older client runs) or see another distro family (a front in a toolbox container sharing
 * the user's runtime directory): its catalogue is compared with `listed` once per join, and when they
 * differ every call answers `unavailable` saying so (until this front runs the daemon itself, after that front
 * exits), rather than serve answers that do not match the tools
 * the client was given (schemas, output shapes, actions that do not exist there).
 */
function deferred(start: () => Promise<Started>, listed: DescribeResult, say: (line: string) => void): Omit<FrontClient, "described"> {
  let starting: Promise<Started> | null = null;
  let closed = false;
  /** The verdict for the daemon currently joined (null: not checked yet, refused last time, or this process runs the daemon). */
  let verdict: Promise<Outcome<never> | null> | null = null;
  let warned = false;
  const ready = (): Promise<Started> => {
    starting ??= start().catch((err: unknown) => {
      starting = null;
      say(`the embedded daemon could not start: ${(err as Error).message}`);
      throw err;
    });
    return starting;
  };
  /** Null when the joined daemon serves what was listed; else the answer every call gets. */
  const check = async (daemon: Started): Promise<Outcome<never> | null> => {
    const r = await daemon.client.call("describe", {});
    if (!r.ok) { verdict = null; return null; } // not known: the call itself will say what is wrong
    if (isDeepStrictEqual(r.value.actions, listed.actions)) return null;
    // A refusal is not kept: the next call asks again, through the embedded client, which notices when that
    // front has gone away and this one runs (or joins) the daemon in its place.
    verdict = null;
    if (warned) return refusal(daemon.at);
    warned = true;
    say(`the embedded daemon at ${daemon.at} is run by another hostgate front whose catalogue differs from the tools this one listed (another hostgate version or build, or a front on another distribution sharing this runtime directory, e.g. in a toolbox container); calls answer unavailable while that front runs it (restart this MCP server to use it)`);
    return refusal(daemon.at);
  };
  const refusal = (at: string): Outcome<never> => ({ ok: false, error: {
      code: "unavailable",
      message: `This MCP server listed the tools of its own hostgate build, but this user's embedded daemon (${at}) is run by another hostgate front whose catalogue differs (another hostgate version or build, or another distribution sharing this runtime directory): its answers would not match the tools listed.`,
      hint: "Restart this MCP server (a front started while that daemon runs lists that daemon's tools), or better, restart every MCP client so that all run one hostgate build.",
    } });
  const client: DaemonClient = {
    call: async (method, params, callOpts) => {
      let daemon;
      try {
        daemon = await ready();
      } catch (err) {
        return { ok: false, error: { code: "unavailable", message: `The embedded daemon could not start: ${(err as Error).message}`, hint: "Run `hostgate doctor` in a terminal; the MCP server's stderr log has the details." } };
      }
      if (!daemon.joined()) verdict = null;
      else {
        verdict ??= check(daemon);
        const refused = await verdict;
        if (refused) return refused;
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
