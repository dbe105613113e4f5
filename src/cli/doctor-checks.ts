import { existsSync, statSync } from "node:fs";
import type { ClientContext, ClientId } from "../core/clients/catalog.ts";

/** One line of `hostgate doctor`: a check, its status, what was seen, and (for problems) one line to fix it. */
export interface DoctorLine {
  section: "daemon" | "clients" | "hosts";
  name: string;
  status: "ok" | "warn" | "fail";
  detail: string;
  fix?: string | undefined;
}

/** The daemon's own checks (the `doctor` tool's), through the daemon the MCP front would use. */
export async function daemonChecks(config: import("../config/schema.ts").Config, env: NodeJS.ProcessEnv): Promise<{ lines: DoctorLine[]; close: () => Promise<void> }> {
  const lines: DoctorLine[] = [];
  const none = () => Promise.resolve();
  // The daemon the fronts would use, by their own rule (daemon/locate.ts), not always the embedded one (issue 22).
  const [{ locateDaemon }, { socketIsLive }] = await Promise.all([import("../daemon/locate.ts"), import("../ipc/server.ts")]);
  let where: import("../daemon/locate.ts").DaemonLocation;
  try {
    where = await locateDaemon(config, socketIsLive, env);
  } catch (err) {
    lines.push({ section: "daemon", name: "daemon socket", status: "fail", detail: (err as Error).message, fix: "fix or unset HOSTGATE_DAEMON" });
    return { lines, close: none };
  }
  const socket = where.kind === "embedded" ? null : where.agent;
  let client: import("../ipc/client.ts").DaemonClient;
  let close: () => Promise<void>;
  if (socket !== null) {
    const { socketDaemonClient } = await import("../ipc/socket-client.ts");
    client = socketDaemonClient(socket, env.HOSTGATE_TOKEN || config.daemon.token);
    close = () => client.close();
    lines.push({ section: "daemon", name: "daemon socket", status: "ok", detail: `${where.kind === "system" ? "the system daemon" : "configured"}: ${socket} (${where.reason}); the MCP fronts use it` });
    if (where.kind === "system" && !env.HOSTGATE_DAEMON) {
      lines.push({ section: "daemon", name: "daemon choice", status: "warn", detail: "the fronts use the system daemon only because it runs and no embedded daemon of yours does: which daemon holds your plans can change when either starts or stops", fix: `pin it: hostgate setup --socket ${socket} (with your clients' flags), or HOSTGATE_DAEMON=embedded to keep your own` });
    }
  } else {
    const { startEmbeddedDaemon } = await import("../daemon/embedded.ts");
    try {
      const embedded = await startEmbeddedDaemon(config, { announce: () => undefined });
      client = embedded.client;
      close = () => embedded.close();
      lines.push({ section: "daemon", name: "daemon socket", status: "ok", detail: `embedded daemon (${embedded.role === "client" ? "running, reached at" : "started for this check at"} ${embedded.agentSocket}; ${where.reason})` });
    } catch (err) {
      lines.push({ section: "daemon", name: "daemon socket", status: "fail", detail: `the embedded daemon cannot start: ${(err as Error).message}`, fix: "check the state directory's permissions (HOSTGATE_STATE_DIR / state.dir), or point at a daemon with --socket" });
      return { lines, close: none };
    }
  }
  // The caller closes it after the client checks: a client entry started meanwhile reaches this daemon.
  const r = await client.call("doctor", {});
  if (!r.ok) {
    lines.push({ section: "daemon", name: "daemon reachable", status: "fail", detail: r.error.message, fix: socket?.startsWith("/") ? `start the daemon (sudo systemctl start hostgate) and check that you are in the group hostgate (id -nG)` : (r.error.hint ?? "start the daemon and check HOSTGATE_SOCKET / daemon.socket") });
    return { lines, close };
  }
  for (const c of r.value.checks) {
    lines.push({ section: "daemon", name: c.name, status: c.status, detail: c.detail, fix: c.status === "ok" ? undefined : fixFor(c.name, c.detail) });
  }
  return { lines, close };
}

function fixFor(check: string, detail: string): string | undefined {
  const anchor = "set audit.checkpoint_copy to a file outside the state directory (docs/configuration.md), and keep the witness `hostgate approve` prints";
  switch (check) {
    case "approval separation": return "sudo hostgate daemon install, then hostgate setup --socket /run/hostgate/agent.sock";
    case "systemd backend": return "set backend.type: dbus on a host whose PID 1 is systemd (docs/configuration.md)";
    case "audit chain": return /unanchored/.test(detail) ? anchor : "hostgate audit verify --state-dir <dir> shows the first broken entry (docs/audit-format.md)";
    case "audit anchoring": return anchor;
    case "state store": return "transactions with unknown outcome need a human look: history { status: \"unknown\" }";
    default: return undefined;
  }
}

/** A warning for each configuration file in use (file and drop-ins) that holds daemon.token or server.token and is readable by others. */
export async function tokenFileChecks(flag: string | undefined): Promise<DoctorLine[]> {
  const [{ configCandidates }, { exposedTokenFiles, describeExposed }] = await Promise.all([import("./config.ts"), import("../config/token-files.ts")]);
  const { used, dropIns } = configCandidates(flag);
  return exposedTokenFiles([...(used === null ? [] : [used]), ...dropIns]).map((f) => ({ section: "daemon" as const, name: "token file", status: "warn" as const, ...describeExposed(f) }));
}

/** Checks every client that is installed or configured: entry present, binary exists, spawns and answers tools/list. */
export async function clientChecks(env: NodeJS.ProcessEnv, cwd: string): Promise<DoctorLine[]> {
  const [{ CLIENTS }, { readEntry }, { readClientFile, anyPresent }, { probeStdio, probeHttp }] = await Promise.all([
    import("../core/clients/catalog.ts"), import("../core/clients/read-entry.ts"), import("../adapters/client-files.ts"), import("../adapters/mcp-probe.ts"),
  ]);
  const { clientContext } = await import("./setup-run.ts");
  const lines: DoctorLine[] = [];
  // One at a time: entries of the same user share one embedded daemon, and start-up is what is measured.
  const probes: (() => Promise<void>)[] = [];
  for (const scope of ["user", "project"] as const) {
    const ctx = clientContext(env, cwd, scope);
    for (const def of CLIENTS) {
      if (scope === "project" && def.id !== "claude") continue;
      const path = def.file(ctx);
      const name = def.id === "claude" ? `${def.label} (${scope})` : def.label;
      const setupCmd = `hostgate setup --yes --${def.id}${def.id === "claude" ? ` --scope ${scope}` : ""}`;
      const read = readClientFile(path);
      if (!read.ok) { lines.push({ section: "clients", name, status: "fail", detail: read.reason, fix: `make ${path} readable` }); continue; }
      const found = readEntry(def, read.file.text);
      const installed = anyPresent(def.detect(ctx), env);
      if (found.state === "no_file" || found.state === "absent") {
        // The client may run hostgate from its plugin or extension instead (setup then skips its entry: no fix to offer).
        const plugin = scope === "user" ? await pluginLine(def.id, env, ctx, name) : null;
        if (plugin !== null) {
          lines.push(plugin);
          // Folder Trust disables the extension's server in an untrusted folder as it does an entry's.
          const trust = def.id === "gemini" ? await geminiTrustLine(read.file.text, env, ctx.home, cwd) : null;
          if (trust !== null) lines.push(trust);
        }
        else if (installed && scope === "user") lines.push({ section: "clients", name, status: "warn", detail: `installed, but ${found.state === "no_file" ? `${path} does not exist` : `${path} has no hostgate entry`}`, fix: setupCmd });
        continue;
      }
      if (found.state === "malformed" || found.state === "unusable") { lines.push({ section: "clients", name, status: "fail", detail: `${path}: ${found.reason}`, fix: found.state === "malformed" ? `fix the syntax of ${path} (setup leaves malformed files untouched)` : setupCmd }); continue; }
      const launch = found.launch;
      const line: DoctorLine = { section: "clients", name, status: "ok", detail: path };
      lines.push(line);
      if (def.id === "gemini") {
        const trust = await geminiTrustLine(read.file.text, env, ctx.home, cwd);
        if (trust !== null) lines.push(trust);
      }
      const twice = await twiceLine(def.id, def.label, env, ctx, path, scope);
      if (twice !== null) lines.push(twice);
      if (launch.kind === "http") {
        probes.push(() => probeHttp(launch.url, launch.headers).then((p) => {
          if (p.ok) line.detail = `${path}: ${launch.url} answers (${p.server}, ${p.ms} ms)`;
          else Object.assign(line, { status: "fail", detail: `${path}: ${launch.url}: ${p.reason}`, fix: "start the server: hostgate serve (or fix the URL/token with hostgate setup --transport http)" });
        }));
        continue;
      }
      const missing = [launch.command, ...launch.args.filter((a) => a.startsWith("/") && a.endsWith(".js"))].find((p) => !p.startsWith("/") || !existsSync(p) || !statSync(p).isFile());
      if (missing !== undefined) {
        Object.assign(line, { status: "fail", detail: `${path}: ${missing.startsWith("/") ? `${missing} does not exist` : `${missing} is not an absolute path (clients may start it without your PATH)`}`, fix: setupCmd });
        continue;
      }
      const euid = process.getuid?.();
      if (euid === 0 && read.file.uid !== null && read.file.uid !== 0) {
        // Starting it would run a command another user chose, as root.
        Object.assign(line, { status: "warn", detail: `${path}: not started: the file belongs to uid ${read.file.uid} and doctor runs as root`, fix: "run hostgate doctor as that user" });
        continue;
      }
      // Started as a client would, with a trimmed environment: HOME, and HOSTGATE_CONFIG_DIR when set (the user's
      // own move of /etc/hostgate, which their clients inherit), plus the entry's env.
      probes.push(() => probeStdio(launch.command, launch.args, { ...(env.HOME ? { HOME: env.HOME } : {}), ...(env.HOSTGATE_CONFIG_DIR ? { HOSTGATE_CONFIG_DIR: env.HOSTGATE_CONFIG_DIR } : {}), ...launch.env }).then((p) => {
        if (p.ok) line.detail = `${path}: starts without PATH and answers tools/list (${p.tools} tools, ${p.server}, ${p.ms} ms)`;
        else Object.assign(line, { status: "fail", detail: `${path}: ${p.reason}${p.stderr ? ` — ${p.stderr.trim().split("\n").pop()}` : ""}`, fix: setupCmd });
      }));
    }
  }
  for (const probe of probes) await probe();
  if (lines.length === 0) lines.push({ section: "clients", name: "AI clients", status: "warn", detail: "no AI client found with a hostgate entry", fix: "hostgate setup" });
  return lines;
}

/**
 * Gemini CLI with Folder Trust on (its default) connects no MCP server in an untrusted folder
 * (core/clients/gemini-trust.ts, with this environment's GEMINI_CLI_TRUST_WORKSPACE / GEMINI_RESTRICTED_MODE):
 * a line saying whether `cwd` is trusted, or null when settings turn Folder Trust off.
 */
export async function geminiTrustLine(settingsText: string | null, env: NodeJS.ProcessEnv, home: string, cwd: string): Promise<DoctorLine | null> {
  const [{ parse }, { geminiFolderTrust }, { readClientFile }] = await Promise.all([import("jsonc-parser"), import("../core/clients/gemini-trust.ts"), import("../adapters/client-files.ts")]);
  const rulesPath = env.GEMINI_CLI_TRUSTED_FOLDERS_PATH || `${home}/.gemini/trustedFolders.json`;
  const rulesRead = readClientFile(rulesPath);
  const rules: unknown = rulesRead.ok && rulesRead.file.text !== null ? parse(rulesRead.file.text, [], { allowTrailingComma: true }) : {};
  const trust = geminiFolderTrust(settingsText === null ? {} : parse(settingsText, [], { allowTrailingComma: true }), rules, cwd, { GEMINI_CLI_TRUST_WORKSPACE: env.GEMINI_CLI_TRUST_WORKSPACE, GEMINI_RESTRICTED_MODE: env.GEMINI_RESTRICTED_MODE });
  const name = "Gemini CLI folder trust";
  const fix = `run gemini in ${cwd} and choose "Trust folder" (or /permissions there), or add "${cwd}": "TRUST_FOLDER" to ${rulesPath}; for one run: gemini --skip-trust or GEMINI_CLI_TRUST_WORKSPACE=true in its environment`;
  switch (trust.state) {
    case "off": return null;
    case "trusted": return { section: "clients", name, status: "ok", detail: `${cwd} is trusted (${trust.rule}): Gemini CLI connects hostgate here` };
    case "untrusted": return { section: "clients", name, status: "warn", detail: `Folder Trust is on and ${cwd} is marked untrusted (${trust.rule}): Gemini CLI connects no MCP server here, hostgate included`, fix };
    case "undecided": return { section: "clients", name, status: "warn", detail: `Folder Trust is on and ${cwd} has no trust rule: Gemini CLI asks on its first interactive start here and connects no MCP server until the folder is trusted (a headless run stops)`, fix };
  }
}

/**
 * A client without setup's entry that runs hostgate from its plugin or extension where `ctx.cwd` is (Claude Code,
 * Codex, Gemini CLI: cli/client-plugins.ts): an ok line named `name` that names it; null when none is on (the
 * entry is then missing).
 */
export async function pluginLine(id: ClientId, env: NodeJS.ProcessEnv, ctx: ClientContext, name: string): Promise<DoctorLine | null> {
  const { servedBy } = await import("./client-plugins.ts");
  const p = servedBy(id, env, ctx.home, ctx.cwd, ctx.codexHome);
  return p === null ? null : { section: "clients", name, status: "ok", detail: `hostgate runs from the ${p.kind} ${p.id} (${p.how}, ${p.file}); no entry of setup's is needed` };
}

/**
 * A client with both its hostgate plugin (extension) on and setup's entry in `path` (`scope`: Claude Code's, for
 * the command that removes it): Claude Code runs hostgate twice (issue 25 re-trial 2), Codex and Gemini CLI run
 * the entry in place of the plugin's server. A warning named "<label> plugin|extension" saying so and how to
 * remove one, or null when no plugin is on here.
 */
export async function twiceLine(id: ClientId, label: string, env: NodeJS.ProcessEnv, ctx: ClientContext, path: string, scope: "project" | "user"): Promise<DoctorLine | null> {
  const { servedBy, removeOneOf } = await import("./client-plugins.ts");
  const p = servedBy(id, env, ctx.home, ctx.cwd, ctx.codexHome);
  if (p === null) return null;
  return { section: "clients", name: `${label} ${p.kind}`, status: "warn", detail: p.both(path), fix: removeOneOf(p, scope) };
}

/** Renders the report: one line per check, a fix line under each problem. */
export function renderDoctor(lines: DoctorLine[]): string {
  const mark = { ok: "✓", warn: "!", fail: "✗" } as const;
  const out: string[] = [];
  for (const section of ["daemon", "clients", "hosts"] as const) {
    const ls = lines.filter((l) => l.section === section);
    if (ls.length === 0) continue;
    out.push({ daemon: "Daemon", clients: "Clients", hosts: "Hosts" }[section]);
    for (const l of ls) {
      out.push(`  ${mark[l.status]} ${l.name}: ${l.detail}`);
      if (l.fix) out.push(`      fix: ${l.fix}`);
    }
  }
  const fails = lines.filter((l) => l.status === "fail").length;
  const warns = lines.filter((l) => l.status === "warn").length;
  out.push(fails === 0 ? `All good${warns ? ` (${warns} warning${warns === 1 ? "" : "s"})` : ""}.` : `${fails} problem${fails === 1 ? "" : "s"}${warns ? `, ${warns} warning${warns === 1 ? "" : "s"}` : ""}.`);
  return `${out.join("\n")}\n`;
}
