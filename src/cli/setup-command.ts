import { spawnSync } from "node:child_process";
import { directoryOwner, runAsOwner } from "../adapters/run-as-owner.ts";
import { CLIENTS, type ClientId } from "../core/clients/catalog.ts";
import { DEFAULT_URL, applyPlan, clientContext, detectClients, planSetup, planSucceeded, renderDiff, renderSummary, validateChoices, type SetupChoices } from "./setup-run.ts";
import { EXIT } from "./common.ts";
import { flaggedClients, type SetupFlags } from "./setup.ts";

/** Why separation matters, in two lines (shown by the wizard). */
export const SEPARATION_NOTE = "The embedded daemon's admin socket belongs to your user, so an assistant with a shell running as you could approve its own plans.\nThe system daemon (`hostgate daemon install`, as root) runs as its own service; only a human at a terminal with access to its admin socket can approve.";

/**
 * Under sudo, the AI clients to configure are the invoking user's, not root's: HOME (and the XDG runtime dir
 * the embedded daemon uses) become that user's. `lookupHome` reads the passwd database (getent).
 */
export function sudoUserEnv(env: NodeJS.ProcessEnv, uid = process.getuid?.(), lookupHome: (user: string) => string | null = passwdHome): NodeJS.ProcessEnv {
  const user = env.SUDO_USER;
  if (uid !== 0 || !user || user === "root" || !/^[a-z_][a-z0-9_.-]*\$?$/i.test(user)) return env;
  const home = lookupHome(user);
  if (!home || home === env.HOME) return env;
  return { ...env, HOME: home, XDG_CONFIG_HOME: "", CODEX_HOME: "", XDG_RUNTIME_DIR: env.SUDO_UID ? `/run/user/${env.SUDO_UID}` : "" };
}

/**
 * The environment setup runs with once it has dropped to `uid`, the owner of `home`: root's per-user locations
 * (XDG_RUNTIME_DIR, XDG_CONFIG_HOME, XDG_STATE_HOME, XDG_DATA_HOME, CODEX_HOME) are not that user's, and setup
 * writes XDG_RUNTIME_DIR into the client entries it makes. A location inside `home` is kept; any other is
 * cleared (derived from HOME again), and the runtime dir becomes `/run/user/<uid>` (newcomer trial: root's
 * `/run/user/0` ended up in another user's Cursor entry).
 */
export function ownerEnv(env: NodeJS.ProcessEnv, uid: number, home: string): NodeJS.ProcessEnv {
  const inHome = (p: string | undefined): boolean => p !== undefined && p !== "" && (p === home || p.startsWith(`${home}/`));
  const out: NodeJS.ProcessEnv = { ...env, HOME: home, XDG_RUNTIME_DIR: `/run/user/${uid}` };
  for (const k of ["XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME", "CODEX_HOME"]) if (!inHome(env[k])) out[k] = "";
  return out;
}

function passwdHome(user: string): string | null {
  const r = spawnSync("getent", ["passwd", user], { encoding: "utf8", timeout: 5000 });
  const home = r.status === 0 ? r.stdout.trim().split(":")[5] : undefined;
  return home && home.startsWith("/") ? home : null;
}

/** Choices from flags alone; prompts fill the rest on a terminal. */
export function choicesFromFlags(flags: SetupFlags, env: NodeJS.ProcessEnv): { choices: SetupChoices; problems: string[] } {
  const problems: string[] = [];
  const transport = flags.transport ?? "stdio";
  if (transport !== "stdio" && transport !== "http") problems.push(`--transport ${transport}: expected stdio or http.`);
  const scope = flags.scope ?? "user";
  if (scope !== "user" && scope !== "project") problems.push(`--scope ${scope}: expected user or project.`);
  if ((flags.plannerUrl === undefined) !== (flags.plannerModel === undefined)) problems.push("an LLM planner needs both --planner-url and --planner-model.");
  const choices: SetupChoices = {
    clients: flaggedClients(flags),
    transport: transport === "http" ? "http" : "stdio",
    socket: flags.socket ?? null,
    token: flags.token ?? (env.HOSTGATE_TOKEN || undefined),
    url: flags.url ?? DEFAULT_URL,
    httpToken: flags.httpToken ?? (env.HOSTGATE_HTTP_TOKEN || undefined),
    planner: flags.plannerUrl !== undefined && flags.plannerModel !== undefined ? { base_url: flags.plannerUrl, model: flags.plannerModel, api_key_env: flags.plannerKeyEnv } : null,
    claudeScope: scope === "project" ? "project" : "user",
  };
  if (choices.transport === "http" && flags.socket !== undefined) problems.push("--socket is for --transport stdio (hostgate serve has its own daemon settings).");
  return { choices, problems };
}

/**
 * Runs `hostgate setup` and returns the exit code. Without a terminal it needs --yes and at least one client
 * flag (a prompt library cannot ask without one, and a script must not hang). Run as root for a home that
 * belongs to another user (sudo, or HOME set by hand), the whole command, dry run and prompts included, is
 * run again as that home's owner (`argv`: this process's command line) before anything there is read.
 */
export async function runSetupCommand(flags: SetupFlags, rawEnv: NodeJS.ProcessEnv, cwd: string, argv: readonly string[] = process.argv.slice(1)): Promise<number> {
  const env = sudoUserEnv(rawEnv);
  if (process.getuid?.() === 0) {
    const home = clientContext(env, cwd, "user").home;
    const owned = directoryOwner(home);
    if (!owned.ok) {
      process.stderr.write(`hostgate setup: ${owned.reason}.\n`);
      return EXIT.failure;
    }
    if (owned.owner.uid !== 0) {
      // Root would follow that user's links (~/.cursor → /etc/…) and lose rename races in their directories:
      // with the owner's uid the kernel checks every path as it would for them (issue 21).
      process.stderr.write(`hostgate setup: ${home} belongs to uid ${owned.owner.uid}: running as that user, so nothing there is followed with root's rights.\n`);
      try {
        return await runAsOwner(owned.owner, [process.execPath, ...process.execArgv, ...argv], { env: ownerEnv(env, owned.owner.uid, home), cwd });
      } catch (err) {
        process.stderr.write(`hostgate setup: ${(err as Error).message}\n`);
        return EXIT.failure;
      }
    }
  }
  if (env !== rawEnv) process.stderr.write(`hostgate setup: run with sudo: configuring ${rawEnv.SUDO_USER}'s clients in ${env.HOME} (the files stay theirs).\n`);
  const { choices, problems } = choicesFromFlags(flags, env);
  // A dry run writes nothing, so without a terminal it needs no --yes (it still needs the client flags).
  const interactive = !flags.yes && !(flags.dryRun && !process.stdin.isTTY);
  if (interactive && !(process.stdin.isTTY && process.stdout.isTTY)) {
    problems.push("no terminal to ask questions on: pass --yes with the clients to configure (e.g. --yes --claude --cursor) and any other flags.");
  }
  if (!interactive && choices.clients.length === 0) {
    const found = detectClients(clientContext(env, cwd, choices.claudeScope), env);
    problems.push(`no client chosen: pass one or more of ${CLIENTS.map((c) => `--${c.id}`).join(" ")}${found.length ? ` (installed here: ${found.map((id) => `--${id}`).join(" ")})` : ""}.`);
  }
  if (problems.length > 0) {
    for (const p of problems) process.stderr.write(`hostgate setup: ${p}\n`);
    return EXIT.usage;
  }
  if (interactive) {
    const { askChoices } = await import("./setup-prompts.ts");
    const asked = await askChoices(choices, flags, env, cwd);
    if (asked === null) return EXIT.failure;
    return finish(asked, flags, env, cwd, true);
  }
  return finish(choices, flags, env, cwd, false);
}

async function finish(choices: SetupChoices, flags: SetupFlags, env: NodeJS.ProcessEnv, cwd: string, interactive: boolean): Promise<number> {
  const invalid = validateChoices(choices);
  if (invalid.length > 0) {
    for (const p of invalid) process.stderr.write(`hostgate setup: ${p}\n`);
    return EXIT.usage;
  }
  const plan = planSetup(choices, env, cwd);
  if (flags.dryRun) {
    process.stdout.write(renderDiff(plan));
    process.stdout.write(renderSummary(plan, new Map(), true));
    return planSucceeded(plan, new Map()) ? EXIT.ok : EXIT.failure;
  }
  if (interactive) {
    const { confirmWrite } = await import("./setup-prompts.ts");
    if (!(await confirmWrite(plan))) return EXIT.failure;
  }
  const applied = applyPlan(plan);
  process.stdout.write(renderSummary(plan, applied, false));
  const ok = planSucceeded(plan, applied);
  if (ok) process.stdout.write(nextSteps(choices));
  return ok ? EXIT.ok : EXIT.failure;
}

function nextSteps(c: SetupChoices): string {
  const lines = ["", "Next: restart or reload each client so it reads its configuration, then run `hostgate doctor` to check every entry."];
  if (c.transport === "http") lines.push(`Start the server the entries point at: hostgate serve (${c.url}).`);
  else if (c.socket === null) lines.push("Approvals: `hostgate approve <plan_id>` in a terminal reaches the embedded daemon the client starts.", SEPARATION_NOTE);
  else lines.push(`Approvals: \`sudo hostgate approve <plan_id>\` (the daemon at ${c.socket}).`);
  return `${lines.join("\n")}\n`;
}

export type { ClientId };
