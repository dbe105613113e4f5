import { createHash } from "node:crypto";
import { chmodSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, join } from "node:path";
import { createTwoFilesPatch } from "diff";
import { anyPresent, gitIgnoreStatus, notWritable, readClientFile, rootUnsafePath, writeClientFile, type ClientFile } from "../adapters/client-files.ts";
import { CLIENTS, clientById, type ClientContext, type ClientId } from "../core/clients/catalog.ts";
import { entryHoldsSecret, type EntrySpec, type StdioEntry } from "../core/clients/entry.ts";
import { mergeJson, mergeToml, type MergeResult } from "../core/clients/merge.ts";
import { mergeYaml } from "../core/clients/merge-yaml.ts";
import { readEntry } from "../core/clients/read-entry.ts";
import { applySetupSettings, userConfigPath, type SetupSettings } from "../config/user-config.ts";
import { removeOneOf, servedBy } from "./client-plugins.ts";
import { launcher } from "./install-paths.ts";

/**
 * The work behind `hostgate setup`, without prompts: from the choices (flags or the wizard's answers) to
 * one planned change per file, then either a diff (--dry-run) or the writes. Used by both paths.
 */

/** What the user chose. */
export interface SetupChoices {
  clients: ClientId[];
  transport: "stdio" | "http";
  /** Daemon socket path, tcp:// or vsock:// URI; null = embedded daemon (stdio only). */
  socket: string | null;
  /** Token for a tcp:// or vsock:// daemon. */
  token?: string | undefined;
  /** URL of a running `hostgate serve` (http only). */
  url: string;
  /** Bearer token for that server (http only). */
  httpToken?: string | undefined;
  planner: SetupSettings["planner"];
  claudeScope: "project" | "user";
}

/** The default URL of `hostgate serve`. */
export const DEFAULT_URL = "http://127.0.0.1:48000/mcp";

/** Checks the choices; returns the problems, each a sentence that says what to do. */
export function validateChoices(c: SetupChoices): string[] {
  const problems: string[] = [];
  if (c.socket !== null) {
    if (/^tcp:\/\//.test(c.socket)) {
      if (!/^tcp:\/\/(\[[^\]]+\]|[^:/]+):\d{1,5}$/.test(c.socket)) problems.push(`--socket ${c.socket}: expected tcp://HOST:PORT.`);
    } else if (/^vsock:\/\//.test(c.socket)) {
      if (!/^vsock:\/\/\d+:\d{1,10}$/.test(c.socket)) problems.push(`--socket ${c.socket}: expected vsock://CID:PORT (the VM's CID: virsh dumpxml <vm> | grep cid).`);
    } else if (!c.socket.startsWith("/")) {
      problems.push(`--socket ${c.socket}: expected an absolute socket path (e.g. /run/hostgate/agent.sock), tcp://HOST:PORT or vsock://CID:PORT.`);
    }
    // tcp:// listeners check a token; the vsock listener forwards to the agent socket (group rights, no token),
    // but a token given for it is passed along and checked if the daemon behind it asks for one.
    if (c.socket.startsWith("tcp://") && (c.token === undefined || c.token.length < 32)) {
      problems.push(`${c.socket} needs the daemon's token (at least 32 characters): set HOSTGATE_TOKEN or pass --token.`);
    }
    if (/^(tcp|vsock):\/\//.test(c.socket) && c.token !== undefined && c.token.length < 32) problems.push("the daemon token must be at least 32 characters (as daemon.token).");
  }
  if (c.transport === "http") {
    try {
      const u = new URL(c.url);
      if (u.protocol !== "http:" && u.protocol !== "https:") problems.push(`--url ${c.url}: expected an http:// or https:// URL.`);
    } catch {
      problems.push(`--url ${c.url}: not a URL; the default is ${DEFAULT_URL}.`);
    }
    if (c.httpToken !== undefined && c.httpToken.length < 16) problems.push("the HTTP token must be at least 16 characters (as server.token).");
  }
  if (c.planner) {
    try { new URL(c.planner.base_url); } catch { problems.push(`--planner-url ${c.planner.base_url}: not a URL (e.g. http://127.0.0.1:8080/v1).`); }
    if (c.planner.api_key_env !== undefined && !/^[A-Z_][A-Z0-9_]*$/.test(c.planner.api_key_env)) problems.push(`--planner-key-env ${c.planner.api_key_env}: an environment variable name in capitals, e.g. OPENAI_API_KEY.`);
  }
  return problems;
}

/** The paths clients use, from the environment (HOME, XDG_CONFIG_HOME, CODEX_HOME) and the project directory. */
export function clientContext(env: NodeJS.ProcessEnv, cwd: string, claudeScope: "project" | "user"): ClientContext {
  const home = env.HOME || homedir();
  return { home, cwd, configHome: env.XDG_CONFIG_HOME || join(home, ".config"), codexHome: env.CODEX_HOME || join(home, ".codex"), claudeScope };
}

/** Ids of the clients that look installed here (config directory present or command on PATH). */
export function detectClients(ctx: ClientContext, env: NodeJS.ProcessEnv): ClientId[] {
  return CLIENTS.filter((c) => anyPresent(c.detect(ctx), env)).map((c) => c.id);
}

/** One file setup will write (or not), with its outcome. */
export interface PlannedFile {
  /** A client id, or "config" for hostgate's own user configuration. */
  target: ClientId | "config";
  label: string;
  path: string;
  file: ClientFile | null;
  /** `skipped`: left as it is on purpose (the client already runs hostgate from its plugin or extension), with why. */
  result: MergeResult | { status: "unwritable"; reason: string } | { status: "skipped"; reason: string };
  secret: boolean;
  /** Tighten an unchanged file holding a secret to 0600. */
  tighten: boolean;
  notes: string[];
  warnings: string[];
  /** Where the backup goes when not beside the file (project files: out of the repository). */
  backupDir?: string | undefined;
}

/** The whole plan: files plus facts for the summary. */
export interface SetupPlan {
  files: PlannedFile[];
  warnings: string[];
  secrets: string[];
}

function stdioEntry(c: SetupChoices, env: NodeJS.ProcessEnv, configPath: string | null): { stdio: StdioEntry; warnings: string[] } {
  const l = launcher(env);
  const args = [l.script, "mcp", ...(configPath ? ["--config", configPath] : [])];
  const e: Record<string, string> = {};
  if (c.socket !== null && c.token && /^(tcp|vsock):\/\//.test(c.socket)) e.HOSTGATE_TOKEN = c.token;
  // The embedded daemon puts its admin socket under XDG_RUNTIME_DIR; a client that spawns hostgate with a
  // trimmed environment would put it elsewhere, and `hostgate approve` in your terminal would not find it.
  if (c.socket === null && env.XDG_RUNTIME_DIR) e.XDG_RUNTIME_DIR = env.XDG_RUNTIME_DIR;
  // The choice is pinned (issue 22): without it a system daemon installed later would take this client's plans
  // from then on (daemon/locate.ts), silently. --socket pins a socket the same way, by naming it.
  if (c.socket === null) e.HOSTGATE_DAEMON = "embedded";
  const forwardEnv = c.planner?.api_key_env ? [c.planner.api_key_env] : [];
  return { stdio: { transport: "stdio", command: l.node, args, env: e, forwardEnv }, warnings: l.warning ? [l.warning] : [] };
}

/**
 * Where backups of a project's client files go: `$XDG_STATE_HOME/hostgate/setup-backups/<project>-<hash>`
 * (default ~/.local/state), so no backup (which may hold an old token) lies in the repository for git to see.
 */
export function projectBackupDir(env: NodeJS.ProcessEnv, ctx: ClientContext, fileRealPath: string): string {
  const state = env.XDG_STATE_HOME || join(ctx.home, ".local", "state");
  // One folder per directory holding the file: the project's name to find it, a hash to keep projects apart.
  return join(state, "hostgate", "setup-backups", `${basename(ctx.cwd) || "root"}-${createHash("sha256").update(dirname(fileRealPath)).digest("hex").slice(0, 12)}`);
}

/** Reads a file setup may edit; as root (its own home: another user's runs as that user) only on a path root alone controls. */
function readForSetup(path: string): ReturnType<typeof readClientFile> {
  if (process.getuid?.() === 0) {
    const why = rootUnsafePath(path);
    if (why !== null) return { ok: false, reason: why };
  }
  return readClientFile(path);
}

/** Plans every change (reads files, merges in memory); writes nothing. */
export function planSetup(c: SetupChoices, env: NodeJS.ProcessEnv, cwd: string): SetupPlan {
  const ctx = clientContext(env, cwd, c.claudeScope);
  const files: PlannedFile[] = [];
  const warnings: string[] = [];
  // hostgate's own user configuration: daemon.socket and planner.
  const cfgPath = userConfigPath(env);
  const cfgRead = readForSetup(cfgPath);
  // HTTP entries reach `hostgate serve`, whose daemon is its own business: daemon.socket is left as it is then.
  const settings: SetupSettings = { socket: c.transport === "stdio" ? c.socket : undefined, planner: c.planner };
  let configInUse: string | null = null;
  if (!cfgRead.ok) {
    files.push({ target: "config", label: "hostgate config", path: cfgPath, file: null, result: { status: "unwritable", reason: cfgRead.reason }, secret: false, tighten: false, notes: [], warnings: [] });
  } else if (cfgRead.file.text !== null || (settings.socket !== null && settings.socket !== undefined) || settings.planner !== null) {
    let result: PlannedFile["result"];
    try {
      const r = applySetupSettings(cfgRead.file.text, settings);
      result = { status: !r.changed ? "unchanged" : cfgRead.file.text === null ? "created" : "updated", text: r.text };
      configInUse = cfgPath;
    } catch (err) {
      result = { status: "malformed", reason: (err as Error).message };
    }
    if (result.status !== "unchanged" && result.status !== "malformed") {
      const why = notWritable(cfgRead.file);
      if (why) result = { status: "unwritable", reason: why };
    }
    files.push({ target: "config", label: "hostgate config", path: cfgPath, file: cfgRead.file, result, secret: false, tighten: false, notes: [], warnings: [] });
  }
  const { stdio, warnings: w } = stdioEntry(c, env, configInUse);
  warnings.push(...w);
  const spec: EntrySpec = c.transport === "http" ? { transport: "http", url: c.url, token: c.httpToken } : stdio;
  const secrets = [c.token, c.httpToken].filter((s): s is string => !!s);
  for (const id of c.clients) {
    const def = clientById(id);
    const path = def.file(ctx);
    const rendered = def.render(spec, stdio);
    const usedSpec: EntrySpec = spec.transport === "http" && id === "claude-desktop" ? stdio : spec;
    const secret = entryHoldsSecret(usedSpec);
    const read = readForSetup(path);
    const notes = [...rendered.notes];
    if (id === "claude" && c.claudeScope === "project") notes.push("Claude Code asks once before it starts servers from a project .mcp.json (`claude mcp list` shows it pending until then)");
    const planned: PlannedFile = { target: id, label: def.label, path, file: read.ok ? read.file : null, result: { status: "unwritable", reason: "" }, secret, tighten: false, notes, warnings: [] };
    const plugin = servedBy(id, env, ctx.home, ctx.cwd, ctx.codexHome);
    if (!read.ok) {
      planned.result = { status: "unwritable", reason: read.reason };
    } else if (plugin !== null) {
      // Issue 25 re-trials: with the plugin (extension) on, an entry of ours would run hostgate twice (Claude Code)
      // or replace the plugin's server of the same name (Codex, Gemini CLI).
      planned.result = { status: "skipped", reason: `${def.label} already runs hostgate from its ${plugin.kind} ${plugin.id} (${plugin.how}, ${plugin.file}); ${plugin.second}` };
      planned.notes.push(`to use setup's entry instead: ${plugin.remove}, then run this again`);
      const entry = readEntry(def, read.file.text).state;
      if (entry !== "no_file" && entry !== "absent") planned.warnings.push(`${path} already has a hostgate entry beside the ${plugin.kind}: ${removeOneOf(plugin, c.claudeScope)}`);
    } else {
      planned.result = def.format === "toml" ? mergeToml(read.file.text, def.table, rendered.entry)
        : def.format === "yaml" ? mergeYaml(read.file.text, def.table, rendered.entry, def.skeleton, def.list === true)
        : mergeJson(read.file.text, def.table, rendered.entry, def.skeleton);
      if (planned.result.status === "created" || planned.result.status === "updated") {
        const why = notWritable(read.file);
        if (why) planned.result = { status: "unwritable", reason: why };
      }
      if (def.project(ctx)) planned.backupDir = projectBackupDir(env, ctx, read.file.realPath);
      if (planned.result.status === "unchanged" && secret && read.file.mode !== null && (read.file.mode & 0o077) !== 0) planned.tighten = true;
      if (secret && def.project(ctx) && planned.result.status !== "malformed" && planned.result.status !== "unwritable") {
        const git = gitIgnoreStatus(path);
        if (git === "not_ignored") planned.warnings.push(`${path} holds a token and is not ignored by git: add it to .gitignore before you commit (echo ${path.slice(ctx.cwd.length + 1)} >> .gitignore)`);
        if (git === "tracked") planned.warnings.push(`${path} holds a token and is tracked by git: the next commit would publish it; untrack it (git rm --cached ${path.slice(ctx.cwd.length + 1)}) and add it to .gitignore, or use --scope user`);
      }
    }
    files.push(planned);
  }
  return { files, warnings, secrets };
}

function redact(text: string, secrets: string[]): string {
  return secrets.reduce((t, s) => t.split(s).join("<redacted>"), text);
}

/** A unified diff of every planned change (tokens shown as <redacted>). */
export function renderDiff(plan: SetupPlan): string {
  const out: string[] = [];
  for (const f of plan.files) {
    if (f.result.status === "created" || f.result.status === "updated") {
      out.push(redact(createTwoFilesPatch(f.path, f.path, f.file?.text ?? "", f.result.text, f.file?.text === null ? "(new file)" : "", f.result.status === "created" ? "(with hostgate)" : ""), plan.secrets));
    }
  }
  return out.join("");
}

/** One line per file: what happened or would happen, then notes and warnings. */
export function renderSummary(plan: SetupPlan, applied: Map<PlannedFile, { backup: string | null } | Error>, dryRun: boolean): string {
  const lines: string[] = [];
  for (const f of plan.files) {
    const r = f.result;
    const done = applied.get(f);
    let line: string;
    if (done instanceof Error) line = `✗ ${f.label}: ${f.path}: not written: ${done.message}`;
    else if (r.status === "malformed") line = `✗ ${f.label}: ${f.path}: left untouched: ${r.reason}`;
    else if (r.status === "unwritable") line = `✗ ${f.label}: ${f.path}: left untouched: ${r.reason}`;
    else if (r.status === "skipped") line = `- ${f.label}: ${f.path}: skipped: ${r.reason}`;
    else if (r.status === "unchanged") line = `= ${f.label}: ${f.path}: already up to date${f.tighten ? (dryRun ? " (would tighten to mode 0600: it holds a token)" : " (tightened to mode 0600: it holds a token)") : ""}`;
    else line = `${dryRun ? "~" : "✓"} ${f.label}: ${f.path}: ${dryRun ? `would be ${r.status}` : r.status}${done && done.backup ? ` (backup: ${done.backup})` : ""}${f.secret ? " [mode 0600: holds a token]" : ""}`;
    lines.push(line);
    for (const n of f.notes) lines.push(`    note: ${n}`);
    for (const w of f.warnings) lines.push(`    warning: ${w}`);
  }
  for (const w of plan.warnings) lines.push(`warning: ${w}`);
  return `${lines.join("\n")}\n`;
}

/** Writes every planned change (backups first). Returns per file the backup path or the error. */
export function applyPlan(plan: SetupPlan): Map<PlannedFile, { backup: string | null } | Error> {
  const done = new Map<PlannedFile, { backup: string | null } | Error>();
  for (const f of plan.files) {
    if (!f.file) continue;
    try {
      if (f.result.status === "created" || f.result.status === "updated") done.set(f, writeClientFile(f.file, f.result.text, { secret: f.secret, ...(f.backupDir !== undefined ? { backupDir: f.backupDir } : {}) }));
      else if (f.tighten) {
        chmodSync(f.file.realPath, 0o600);
        done.set(f, { backup: null });
      }
    } catch (err) {
      done.set(f, err as Error);
    }
  }
  return done;
}

/** Whether every file ended well (written, or already up to date). */
export function planSucceeded(plan: SetupPlan, applied: Map<PlannedFile, { backup: string | null } | Error>): boolean {
  return plan.files.every((f) => (f.result.status !== "malformed" && f.result.status !== "unwritable") && !(applied.get(f) instanceof Error));
}
