import { isDeepStrictEqual } from "node:util";
import type { Config } from "../config/schema.ts";
import type { DaemonClient } from "../ipc/client.ts";
import { thisBuild, type BuildIdentity } from "../ipc/prebuilt.ts";
import type { DescribeResult, Outcome } from "../ipc/protocol.ts";
import { log } from "./common.ts";
import type { Tracer } from "../core/trace.ts";
import { sameExposure, type ExposureSettings } from "../core/toolsets.ts";
import { exposureSettings } from "../config/exposure.ts";

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
  /** Which daemon this front uses, for its start notice: "the system daemon at /run/hostgate/agent.sock", "this user's embedded daemon"… */
  daemon: string;
  /**
   * For a configured or system daemon: where its exposure settings are written, as the answer to a call of a hidden
   * tool says it (mcp/server.ts FrontOptions.configOf). Absent for an embedded daemon, which this front's configuration configures.
   */
  configOf?: string;
}

/**
 * The daemon the MCP front talks to, by the rule `hostgate approve` also follows (daemon/locate.ts): the
 * socket named by HOSTGATE_SOCKET or `daemon.socket` (with HOSTGATE_TOKEN / `daemon.token` for tcp://), else
 * this user's running embedded daemon, else a running system daemon, else the embedded daemon started here.
 * Same interface either way; the embedded one survives the exit of whichever front runs it. A socket daemon
 * must run this build (buildGuarded), an embedded one must serve the catalogue and build the tools were
 * listed from (catalogueGuard); otherwise calls answer `unavailable` saying why.
 *
 * With `defer`, an embedded daemon this front would start is composed only when first needed or `warm()`ed
 * (the stdio front warms it after answering tools/list), so the handshake does not wait for it (issue 14,
 * cold start); `described` then carries what it will describe. Without a prebuilt table (running the
 * sources) it starts at once, as without `defer`.
 */
export async function openFrontClient(config: Config, env: NodeJS.ProcessEnv = process.env, skills: { install: boolean; exec: boolean } = { install: false, exec: false }, say: (line: string) => void = log, opts: { defer?: boolean; tracer?: Tracer } = {}): Promise<FrontClient> {
  const [{ locateDaemon }, { socketIsLive }] = await Promise.all([import("../daemon/locate.ts"), import("../ipc/server.ts")]);
  const where = await locateDaemon(config, socketIsLive, env);
  if (where.kind !== "embedded") {
    const { socketDaemonClient } = await import("../ipc/socket-client.ts");
    const client = socketDaemonClient(where.agent, env.HOSTGATE_TOKEN || config.daemon.token);
    // In the container image the admin socket is the host's business: approving happens there (issue 25).
    const approve = env.HOSTGATE_IN_IMAGE
      ? "approve on the daemon's host, not in this container: sudo hostgate approve <plan_id>"
      : `approve with: ${await approveCommand(where.admin)} <plan_id>${where.admin ? ` (admin socket ${where.admin})` : " --socket <its admin socket>"}`;
    say(`using the hostgate daemon at ${where.agent} (${where.reason}); ${approve}`);
    const daemon = `${where.kind === "system" ? "the system daemon" : "the configured daemon"} at ${where.agent}`;
    const described = await describeOrOwn(client, where.agent, config, say);
    const configOf = `the configuration of ${daemon} (hostgate config path on its host shows which file), restart that daemon, then this MCP server`;
    return { client: buildGuarded(client, where.agent, say, described?.exposure), close: () => client.close(), warm: () => undefined, daemon, configOf, ...(described ? { described } : {}) };
  }
  const start = async (): Promise<Started> => {
    const { startEmbeddedDaemon } = await import("../daemon/embedded.ts");
    const embedded = await startEmbeddedDaemon(config, { announce: say, skills, ...(opts.tracer ? { tracer: opts.tracer } : {}) });
    say(embedded.role === "daemon" ? `embedded daemon; approve with: hostgate approve <plan_id> (admin socket ${embedded.adminSocket})` : `using this user's running embedded daemon at ${embedded.agentSocket}`);
    return { client: embedded.client, close: () => embedded.close(), role: () => embedded.role, at: embedded.agentSocket };
  };
  // Another front of this user already runs it: joining costs a socket connect, nothing to defer.
  const running = await socketIsLive(where.agent);
  // The embedded daemon this front starts gates by this front's configuration: its exposure is known, not guessed.
  const described = opts.defer && !running ? await (await import("../daemon/describe-build.ts")).describeThisBuild(config.backend, exposureSettings(config)) : null;
  if (!described) {
    const now = await start();
    // The tools are listed from what this daemon describes now; the guard checks any daemon taken over later.
    const listed = await now.client.call("describe", {});
    const daemon = `this user's embedded daemon at ${where.agent}`;
    if (!listed.ok) return { ...now, warm: () => undefined, daemon };
    const guard = catalogueGuard(listed.value, now.role(), say);
    return { client: guarded(now, guard), close: () => now.close(), warm: () => undefined, described: listed.value, daemon };
  }
  return { ...deferred(start, catalogueGuard(described, "daemon", say), say), described, daemon: `this user's embedded daemon at ${where.agent} (started on first use)` };
}

/**
 * What a socket daemon describes, or, when it cannot be asked (not running, socket not mounted, refused token),
 * this build's own catalogue for this host (daemon/describe-build.ts), so the front still answers `initialize`
 * and `tools/list` and every tool call answers the daemon's error, naming the address it tried (issue 25: the
 * container's front used to exit before `initialize`). Which tools that daemon offers is then not known: the list
 * follows this front's own exposure settings, the notice says so, and once the daemon answers, calls go through
 * only if it offers those same tools (buildGuarded). Null when neither is available (running the sources): the
 * tool list then asks the daemon and fails as before.
 */
async function describeOrOwn(client: DaemonClient, at: string, config: Config, say: (line: string) => void): Promise<DescribeResult | null> {
  const r = await client.call("describe", {});
  if (r.ok) return r.value;
  say(`${r.error.message}${r.error.hint ? ` ${r.error.hint}` : ""} Which tools that daemon offers is not known yet: listing this build's tools as this front's own configuration exposes them (tools.*, exec.enabled); each call answers ${r.error.code} until the daemon at ${at} can be used, and then answers unavailable if that daemon offers other tools (restart this MCP server to list them).`);
  return (await import("../daemon/describe-build.ts")).describeThisBuild(config.backend, exposureSettings(config));
}

/**
 * Why a daemon that serves the listed catalogue still does not serve the listed tools: its exposure settings (its
 * `describe`, issue 19) differ from those the list was built from. Null when they agree, or when the list did not
 * say (running the sources: the list came from that daemon's own answer).
 */
function otherExposure(listed: ExposureSettings | undefined, daemon: ExposureSettings | undefined, at: string): string | null {
  if (!listed) return null;
  if (daemon && sameExposure(listed, daemon)) return null;
  return `The hostgate daemon at ${at} offers other tools than this MCP server listed: its exposure settings (tools.*, exec.enabled) ${daemon ? "differ from those the list was built from (the daemon could not be asked when this server started, or its configuration changed since)" : "are not said (a hostgate older than that answer)"}, so a listed tool could answer only tool_disabled and an offered one would not be listed.`;
}

const RESTART_TO_RELIST = "Restart this MCP server (restart or reconnect it in the MCP client): it then lists the tools that daemon offers.";

/** An embedded daemon as a front holds it: run by this process (`daemon`) or by another front (`client`), at `at`. */
interface Started {
  client: DaemonClient;
  close(): Promise<void>;
  role: () => "daemon" | "client";
  at: string;
}

/**
 * Whether the embedded daemon a front uses now serves the catalogue the front listed its tools from (issue 14:
 * the tool list never differs from what the daemon serves). It holds by construction for the daemon the list
 * came from (`trusted`: "daemon" when the list is this build's table, or the role the front had when it asked
 * `describe`). Any other — another front's daemon joined after a deferred front listed this build's table, or
 * this build's own daemon taken over after a front listed an older front's — is asked `describe` and
 * compared (catalogue, build and exposure settings: issue 19, the list holds what that daemon offers): that front may
 * run with another configuration, or be another hostgate build (an upgrade in place while an older client runs) or see
 * another distro family (a toolbox container sharing the user's runtime directory). When they differ, every
 * call answers `unavailable` saying so, rather than serve answers that do not match the listed tools
 * (schemas, output shapes, actions that do not exist there). A refusal is not kept: the next call asks again
 * through the embedded client, which notices when that front has gone away and takes the daemon over.
 */
function catalogueGuard(listed: DescribeResult, trusted: "daemon" | "client", say: (line: string) => void): Admit {
  let verdict: Promise<Outcome<never> | null> | null = null;
  let warned = false;
  let warnedExposure = false;
  const refusal = (at: string): Outcome<never> => ({ ok: false, error: {
    code: "unavailable",
    message: `This MCP server listed its tools from another hostgate catalogue than the one the embedded daemon it now uses (${at}) serves (another hostgate version or build, or another distribution sharing this runtime directory): its answers would not match the tools listed.`,
    hint: "Restart this MCP server (it then lists the tools of the daemon that runs), or better, restart every MCP client so that all run one hostgate build.",
  } });
  const check = async (daemon: Started): Promise<Outcome<never> | null> => {
    const r = await daemon.client.call("describe", {});
    if (!r.ok) { verdict = null; return null; } // not known: the call itself will say what is wrong
    if (isDeepStrictEqual(r.value.actions, listed.actions) && isDeepStrictEqual(r.value.build, listed.build)) {
      const other = otherExposure(listed.exposure, r.value.exposure, daemon.at);
      if (other === null) return null;
      verdict = null;
      if (!warnedExposure) { warnedExposure = true; say(other); }
      return { ok: false, error: { code: "unavailable", message: other, hint: RESTART_TO_RELIST } };
    }
    verdict = null;
    if (!warned) {
      warned = true;
      say(`the embedded daemon at ${daemon.at} (${daemon.role() === "daemon" ? "run by this front now" : "run by another front"}) serves another catalogue than the tools this front listed (another hostgate version or build, or another distribution sharing this runtime directory, e.g. a toolbox container); calls answer unavailable until this MCP server is restarted or a daemon serving the listed tools runs`);
    }
    return refusal(daemon.at);
  };
  return (daemon) => {
    if (daemon.role() === trusted) { verdict = null; return Promise.resolve(null); }
    return (verdict ??= check(daemon));
  };
}

type Admit = (daemon: Started) => Promise<Outcome<never> | null>;

/**
 * One call through `admit` (catalogueGuard): before it, and again after it when the daemon changed hands
 * during it (the embedded client takes a daemon over and sends a read-only call again), so an answer from a
 * daemon that serves another catalogue is never passed on.
 */
const admitted: (daemon: Started, admit: Admit) => DaemonClient["call"] = (daemon, admit) => async (method, params, callOpts) => {
  const refused = await admit(daemon);
  if (refused) return refused;
  const role = daemon.role();
  const r = await daemon.client.call(method, params, callOpts);
  return daemon.role() !== role ? (await admit(daemon)) ?? r : r;
};

/** The daemon's client, each call of which passes `admit` (catalogueGuard). */
function guarded(daemon: Started, admit: Admit): DaemonClient {
  return { call: (method, params, callOpts) => admitted(daemon, admit)(method, params, callOpts), close: () => daemon.close() };
}

/**
 * A client whose daemon starts on the first call or `warm()`. A start that fails answers that call (and
 * every call until a start succeeds: each tries again) `unavailable` with the reason, which stderr gets too;
 * the front keeps serving. Every call passes `admit` (catalogueGuard: the tools were listed from this
 * build's table before any daemon was asked).
 */
function deferred(start: () => Promise<Started>, admit: Admit, say: (line: string) => void): Omit<FrontClient, "described" | "daemon"> {
  let starting: Promise<Started> | null = null;
  let closed = false;
  const ready = (): Promise<Started> => {
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
      return admitted(daemon, admit)(method, params, callOpts);
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

/** A build as a person reads it: `hostgate 0.1.0 (build 3f9c…)`, or "an older hostgate" for a daemon that does not say. */
function buildName(build: BuildIdentity | undefined): string {
  return build ? `hostgate ${build.version} (build ${build.id})` : "a hostgate older than build identities";
}

/**
 * A configured or system daemon as the front uses it (issue 21, "what the front trusts"): it must run this
 * front's build, whose fixed tools' schemas were listed, or every call but `describe` (which only lists
 * tools) answers `unavailable` saying which builds differ and what to do. Checked on each new connection,
 * before a call and again after one that reconnected (the daemon may have been restarted or upgraded
 * meanwhile), so an answer from a daemon of another build is never passed on. Likewise a daemon whose exposure
 * settings differ from `listed`, those the tools were listed by (issue 19: this front's own when the daemon could
 * not be asked at start; the daemon's, and it restarted with another configuration since): every call but
 * `describe` answers `unavailable` saying to restart this MCP server, which then lists what that daemon offers. A refusal is not kept: the
 * next call asks again, so a daemon restarted on the right build is used at once.
 */
function buildGuarded(client: DaemonClient & { connections: () => number }, at: string, say: (line: string) => void, listed?: ExposureSettings): DaemonClient {
  const mine = thisBuild();
  let checkedOn = -1; // the connection on which the daemon was found to run this build and offer the listed tools
  let warned = false;
  let warnedExposure = false;
  const admit = async (): Promise<Outcome<never> | null> => {
    if (checkedOn !== -1 && checkedOn === client.connections()) return null;
    const r = await client.call("describe", {});
    // A refused token is the answer (the daemon closes that connection, so the call itself would only see it
    // closed); otherwise not known: the call itself will say what is wrong.
    if (!r.ok) return r.error.code === "unauthorized" ? r : null;
    if (isDeepStrictEqual(r.value.build, mine)) {
      const other = otherExposure(listed, r.value.exposure, at);
      if (other === null) { checkedOn = client.connections(); return null; }
      checkedOn = -1;
      if (!warnedExposure) { warnedExposure = true; say(other); }
      return { ok: false, error: { code: "unavailable", message: other, hint: RESTART_TO_RELIST } };
    }
    checkedOn = -1;
    const message = `The hostgate daemon at ${at} runs ${buildName(r.value.build)}, this MCP server runs ${buildName(mine)}: their tools and answers may differ, so this server does not use that daemon.`;
    if (!warned) { warned = true; say(message); }
    return { ok: false, error: { code: "unavailable", message, hint: "Run one hostgate build for both: restart the daemon after an upgrade (e.g. `systemctl restart hostgate`), or restart this MCP client so that it runs the daemon's build." } };
  };
  return {
    call: async (method, params, opts) => {
      if (method === "describe") return client.call(method, params, opts);
      const refused = await admit();
      if (refused) return refused;
      const before = client.connections();
      const r = await client.call(method, params, opts);
      return client.connections() !== before ? (await admit()) ?? r : r;
    },
    close: () => client.close(),
  };
}

/**
 * The approve command a human types for the daemon whose admin socket is `admin`: `sudo hostgate approve` when that
 * socket admits root only (mode 0600, root's: the installed service) and this process is not root, else `hostgate
 * approve` (issue 25 re-trial: the .deb's front said `hostgate approve`, which the admin socket then refused).
 */
export async function approveCommand(admin: string | null | undefined, uid: number = process.getuid?.() ?? 0): Promise<string> {
  if (!admin) return "hostgate approve";
  const { ownerOnly } = await import("../ipc/socket-client.ts");
  return ownerOnly(admin) === 0 && uid !== 0 ? "sudo hostgate approve" : "hostgate approve";
}
