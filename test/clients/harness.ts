/**
 * The client harness: runs a real AI client (installed from test/clients/package.json and its lockfile) against a scripted model
 * and the real hostgate, all inside one temp HOME. Per run:
 * 1. a workspace: HOME, XDG dirs, a hostgate config of the test's own (state.dir in the workspace) and the
 *    target path the plan names;
 * 2. `hostgate setup --yes --<client>` in that HOME writes the client's MCP entry (setup tested for real: it
 *    pins the config, the embedded daemon and XDG_RUNTIME_DIR into the entry);
 * 3. the client runs non-interactively with an environment built here (nothing inherited from the runner:
 *    no API key, config or daemon of the user's leaks in), in its own process group, killed on timeout;
 * 4. `hostgate pending --json --config <the test config>` reads the planned transactions of that daemon.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { runHostgate } from "../helpers/hostgate.ts";
import { peerMissing } from "../helpers/peers.ts";
import type { Json, JsonObject } from "./model/scripted-model.ts";

/** This directory: its package.json and lockfile pin the clients; `npm install --prefix test/clients --no-save` installs them. */
export const CLIENTS_DIR = resolve(import.meta.dirname);

/** How a client is found: its npm package and the command its package puts in node_modules/.bin. */
export interface ClientPackage {
  pkg: string;
  bin: string;
}

/** The launcher of an installed client (test/clients/node_modules/.bin/<bin>). */
export function clientBin(c: ClientPackage): string {
  return join(CLIENTS_DIR, "node_modules", ".bin", c.bin);
}

/**
 * Whether the tests of client `c` must skip: true (with "SKIPPING …" on stderr) when it is not installed; under
 * HOSTGATE_REQUIRE_PEERS=1 (CI) a missing client throws instead (test/helpers/peers.ts).
 */
export function clientMissing(c: ClientPackage): boolean {
  const why = existsSync(clientBin(c)) ? null : `${c.pkg} is not installed in test/clients (run: npm install --prefix test/clients --no-save)`;
  return peerMissing(`${c.pkg} client harness`, why);
}

/** One client run's private world. */
export interface Workspace {
  root: string;
  home: string;
  /** The project directory the client runs in. */
  cwd: string;
  /** hostgate's config for this run ($XDG_CONFIG_HOME/hostgate/config.yaml: setup finds it and pins it). */
  configPath: string;
  stateDir: string;
  /** XDG_RUNTIME_DIR (mode 0700): the embedded daemon's sockets go under it. */
  runtimeDir: string;
  /** The file the scripted plan writes (never created: the plan is only planned). */
  target: string;
  /** The environment every process of this run gets (the client adds its own keys). */
  env: Record<string, string>;
  remove(): void;
}

/** Creates a workspace under the system temp dir, with the hostgate config written. */
export function makeWorkspace(label: string): Workspace {
  const root = realpathSync(mkdtempSync(join(tmpdir(), `hg-client-${label}-`)));
  const home = join(root, "home");
  const cwd = join(root, "project");
  const runtimeDir = join(root, "run");
  const stateDir = join(root, "state");
  const configHome = join(home, ".config");
  mkdirSync(cwd, { recursive: true });
  mkdirSync(runtimeDir, { mode: 0o700 });
  mkdirSync(join(configHome, "hostgate"), { recursive: true });
  const configPath = join(configHome, "hostgate", "config.yaml");
  writeFileSync(configPath, `# client harness (${label}): this run's own daemon state\nstate:\n  dir: ${stateDir}\n`);
  const env: Record<string, string> = {
    HOME: home,
    PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    USER: "root",
    LANG: "C.UTF-8",
    TERM: "dumb",
    NO_COLOR: "1",
    XDG_CONFIG_HOME: configHome,
    XDG_STATE_HOME: join(home, ".local", "state"),
    XDG_DATA_HOME: join(home, ".local", "share"),
    XDG_CACHE_HOME: join(home, ".cache"),
    XDG_RUNTIME_DIR: runtimeDir,
    TMPDIR: tmpdir(),
    NO_PROXY: "127.0.0.1,localhost",
    // Set empty (= unset for hostgate) so nothing of the runner's hostgate setup reaches setup or pending.
    HOSTGATE_CONFIG: "", HOSTGATE_SOCKET: "", HOSTGATE_TOKEN: "", HOSTGATE_DAEMON: "", HOSTGATE_STATE_DIR: "", HOSTGATE_RUNTIME_DIR: "", HOSTGATE_ADMIN_SOCKET: "", CODEX_HOME: "",
  };
  return { root, home, cwd, configPath, stateDir, runtimeDir, target: join(root, "x"), env, remove: () => { rmSync(root, { recursive: true, force: true }); } };
}

/** The arguments of the scripted plan call: one WriteFile step on the workspace's target. */
export function planArgs(ws: Workspace): JsonObject {
  return { steps: [{ action: "WriteFile", params: { path: ws.target, content: "hi\n" } }] };
}

/** Runs `hostgate setup --yes --<client>` in the workspace; throws with its output when it fails. */
export async function setupClient(ws: Workspace, client: string): Promise<string> {
  const r = await runHostgate(["setup", "--yes", `--${client}`], { env: ws.env, cwd: ws.cwd });
  if (r.code !== 0) throw new Error(`hostgate setup --${client} exited ${r.code}: ${r.stderr}${r.stdout}`);
  return r.stdout;
}

/** What a client run produced. */
export interface ClientRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
}

/**
 * Runs `command args` in the workspace with exactly `env` (plus nothing inherited), stdin closed, in its own
 * process group; after `timeoutMs` the whole group is killed (SIGKILL) and `timedOut` is set. The group is
 * also killed when the leader exits, so a client's leftover children (its MCP servers) never outlive the run.
 */
export function runClient(command: string, args: string[], env: Record<string, string>, cwd: string, timeoutMs: number): Promise<ClientRun> {
  return new Promise((done) => {
    const child = spawn(command, args, { env, cwd, stdio: ["ignore", "pipe", "pipe"], detached: true });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    const killGroup = (): void => {
      try { if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL"); } catch { /* group already gone */ }
    };
    child.stdout.on("data", (c: Buffer) => { stdout += c.toString(); });
    child.stderr.on("data", (c: Buffer) => { stderr += c.toString(); });
    const timer = setTimeout(() => { timedOut = true; killGroup(); }, timeoutMs);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      killGroup();
      done({ code, signal, timedOut, stdout, stderr });
    });
  });
}

/** A planned step as `hostgate pending --json` lists it under its plan (only the fields the harness reads), with the plan's actor. */
export interface PendingTransaction {
  transaction_id: string;
  action_name: string;
  host: string;
  actor: { client?: string; uid?: number; socket?: string; label?: string; raw?: string };
  summary: string;
}

/** One plan as `hostgate pending --json` lists it (only the fields the harness reads). */
interface PendingPlan {
  plan_id: string;
  actor: { client?: string; uid?: number; socket?: string; label?: string; raw?: string };
  steps: Omit<PendingTransaction, "actor">[];
}

/**
 * The plans waiting in this workspace's daemon: `hostgate pending --json --config <its config>` (with the
 * client gone, pending reads that daemon's state directory through the daemon's own code).
 */
export async function pending(ws: Workspace): Promise<PendingTransaction[]> {
  const r = await runHostgate(["pending", "--json", "--config", ws.configPath], { env: { ...ws.env, HOSTGATE_DAEMON: "embedded" } });
  if (r.code !== 0) throw new Error(`hostgate pending exited ${r.code}: ${r.stderr}`);
  // Pending lists plans, each with its steps (one approval per plan): flattened to the planned steps.
  return (JSON.parse(r.stdout) as { plans: PendingPlan[] }).plans.flatMap((p) => p.steps.map((step) => ({ ...step, actor: p.actor })));
}

/**
 * Paths in `schema` where a combinator (`oneOf`, `anyOf`, `allOf`) sits at the top level: what one major model
 * API rejects in a tool's parameters (issue 22). [] when none.
 */
export function topLevelCombinators(schema: Json): string[] {
  if (schema === null || typeof schema !== "object" || Array.isArray(schema)) return [];
  return ["oneOf", "anyOf", "allOf"].filter((k) => k in schema);
}
