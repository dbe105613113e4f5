import { Command, InvalidArgumentError } from "commander";
import type { AdminClient, DaemonClient } from "../ipc/client.ts";
import type { SkillsEnvelope } from "../ipc/skills.ts";
import { adminSocketPath } from "./admin-socket.ts";
import { EXIT, commandLine, loadConfigOrExit } from "./common.ts";
import { renderSkills } from "./skills-render.ts";

/** Exit codes of `hostgate skills`: 0 ok, 1 failure, 2 bad flags or arguments, 6 the plan changed before apply. */
export const SKILLS_EXIT = { ok: EXIT.ok, failure: EXIT.failure, usage: EXIT.usage, plan_changed: 6 } as const;

/** Error codes that mean the arguments were wrong (exit 2), as opposed to a failure (exit 1). */
const USAGE_CODES = new Set(["invalid_params", "arguments_too_large"]);

function exitFor(env: SkillsEnvelope): number {
  if (env.ok) return SKILLS_EXIT.ok;
  if (env.error.code === "confirm.plan_changed") return SKILLS_EXIT.plan_changed;
  return USAGE_CODES.has(env.error.code) ? SKILLS_EXIT.usage : SKILLS_EXIT.failure;
}

/**
 * Prints an envelope: the JSON itself with --json (the same as the MCP tool's structuredContent), else text for a
 * human (cli/skills-render.ts): a file's content as is, search results as a table, the rest as sentences.
 */
function print(env: SkillsEnvelope, json: boolean, dryRun = false): void {
  if (json) { process.stdout.write(`${JSON.stringify(env, null, 2)}\n`); return; }
  if (!env.ok) { process.stderr.write(`hostgate skills: ${env.error.message}${env.error.hint ? `\n  ${env.error.hint}` : ""}\n`); return; }
  const d = env.data;
  if (typeof d.content === "string") { process.stdout.write(d.content); return; }
  if (Array.isArray(d.results)) {
    for (const r of d.results as { name: string; score: number; description: string }[]) process.stdout.write(`${r.name.padEnd(28)} ${String(r.score).padStart(8)}  ${r.description.slice(0, 100)}\n`);
    return;
  }
  process.stdout.write(renderSkills(env.kind, d, dryRun));
}

const runtimeList = (v: string, prev: string[] = []): string[] => [...prev, v];
const int = (v: string): number => { const n = Number(v); if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError("expected a non-negative integer"); return n; };

/**
 * `hostgate skills …`: the skills tools for a human, through the same daemon methods (embedded daemon, or
 * HOSTGATE_SOCKET). `install` and `sync` plan and apply in one go (the human at the terminal is the
 * confirmation; `--dry-run` stops after the plan). `grants` talks to the admin socket only.
 */
export function registerSkillsCommand(program: Command): void {
  const skills = program.command("skills").description("Find, read, install and grant operational runbooks (skills). --json prints the tools' envelope. Exit 0 ok, 1 failure, 2 bad arguments, 6 plan changed.");
  const agent = (fn: (client: DaemonClient, ...rest: never[]) => Promise<SkillsEnvelope>) => async (...argv: unknown[]): Promise<void> => {
    const cmd = argv[argv.length - 1] as Command;
    const opts = cmd.optsWithGlobals<{ json?: boolean; config?: string; dryRun?: boolean }>();
    const config = loadConfigOrExit(opts.config);
    const { openFrontClient } = await import("./front-client.ts");
    // A human at a terminal: the embedded daemon this command starts may install (a running daemon decides for itself).
    const { client, close } = await openFrontClient(config, process.env, { install: true, exec: false }, () => undefined);
    try {
      const env = await (fn as (c: DaemonClient, ...a: unknown[]) => Promise<SkillsEnvelope>)(client, ...argv.slice(0, -1));
      print(env, opts.json === true, opts.dryRun === true);
      process.exitCode = exitFor(env);
    } finally {
      await close();
    }
  };
  const call = async (client: DaemonClient, method: Parameters<DaemonClient["call"]>[0], params: Record<string, unknown>): Promise<SkillsEnvelope> => {
    const r = await client.call(method, params);
    return r.ok ? (r.value as SkillsEnvelope) : { kind: method.replace(/_/g, "."), ok: false, error: r.error };
  };
  skills.option("--json", "print the JSON envelope (the same as the MCP tool)").option("-c, --config <path>", "configuration file");
  skills.command("search").argument("<words...>").option("--limit <n>", "results (1-50)", int).description("Ranked search over name, description and body")
    .action(agent((c, words: string[], o: { limit?: number }) => call(c, "skills_search", { query: words.join(" "), ...(o.limit ? { limit: o.limit } : {}) })));
  skills.command("route").argument("<intent...>").description("The best skill for a problem, with why")
    .action(agent((c, words: string[]) => call(c, "skills_route", { intent: words.join(" ") })));
  skills.command("resolve").argument("<ref>").description("A reference → source and exact digest")
    .action(agent((c, ref: string) => call(c, "skills_resolve", { ref })));
  skills.command("inspect").argument("<ref>").description("Manifest, files, digest, entrypoints")
    .action(agent((c, ref: string) => call(c, "skills_inspect", { ref })));
  skills.command("read").argument("<ref>").argument("[path]", "file in the skill", "SKILL.md").option("--offset <bytes>", "start here", int).description("Print one file of a skill")
    .action(agent((c, ref: string, path: string, o: { offset?: number }) => call(c, "skills_read", { ref, path, ...(o.offset ? { offset: o.offset } : {}) })));
  skills.command("diagnose").description("What is not offered and why")
    .action(agent((c) => call(c, "skills_diagnose", {})));
  const lifecycle = (kind: "install" | "sync") => async (c: DaemonClient, ...a: unknown[]): Promise<SkillsEnvelope> => {
    const o = a[a.length - 1] as { scope?: string; runtime?: string[]; dryRun?: boolean };
    const args = { ...(kind === "install" ? { ref: a[0] as string } : {}), ...(o.scope ? { scope: o.scope } : {}), ...(o.runtime ? { runtimes: o.runtime } : {}), session: `cli-${process.pid}-${Date.now()}` };
    const plan = await call(c, kind === "install" ? "skills_install_plan" : "skills_sync_plan", args);
    if (!plan.ok || o.dryRun || !plan.confirm) return plan;
    return call(c, kind === "install" ? "skills_install_apply" : "skills_sync_apply", { ...args, confirm: plan.confirm.token });
  };
  skills.command("install").argument("<ref>").option("--scope <scope>", "user | project", "user").option("--runtime <name>", "client folder: agents, claude, codex… (repeat)", runtimeList).option("--dry-run", "show the plan only")
    .description("Install a skill into client folders (.agents/skills, .claude/skills); never runs a script")
    .action(agent(lifecycle("install")));
  skills.command("sync").option("--locked", "install exactly what the lock file pins (the only mode)").option("--scope <scope>", "user | project", "project").option("--runtime <name>", "client folder (repeat)", runtimeList).option("--dry-run", "show the plan only")
    .description("Restore the skills pinned in the scope's lock file")
    .action(agent(lifecycle("sync")));

  const grants = skills.command("grants").description("Exec grants (admin socket only: a model can never grant)").option("--socket <path>", "admin socket");
  const admin = (fn: (a: AdminClient, ...rest: string[]) => Promise<SkillsEnvelope>) => async (...argv: unknown[]): Promise<void> => {
    const cmd = argv[argv.length - 1] as Command;
    // `skills -c FILE grants …`: the config that names the daemon's sockets is the parent's option (optsWithGlobals).
    const opts = cmd.optsWithGlobals<{ json?: boolean; socket?: string; config?: string }>();
    const { socketAdminClient } = await import("../ipc/socket-client.ts");
    const client = socketAdminClient((await adminSocketPath(opts.socket, loadConfigOrExit(opts.config))).path, commandLine());
    try {
      const env = await fn(client, ...(argv.slice(0, -2) as string[]));
      print(env, opts.json === true);
      process.exitCode = exitFor(env);
    } finally {
      await client.close();
    }
  };
  const adminCall = async (client: AdminClient, method: "skills_grants_add" | "skills_grants_list" | "skills_grants_remove", params: Record<string, unknown>): Promise<SkillsEnvelope> => {
    const r = await client.call(method, params as never);
    return r.ok ? (r.value as SkillsEnvelope) : { kind: method.replace(/_/g, "."), ok: false, error: r.error };
  };
  grants.command("add").argument("<ref>", "digest-pinned: name@sha256:…").argument("<entrypoint>").description("Allow skills_execute to run this entrypoint of this exact tree (at a terminal, like approve)")
    .hook("preAction", () => {
      // A grant lets a model run a script without a further approval: a human's act, as `hostgate approve` is.
      if (!process.stdin.isTTY || !process.stdout.isTTY) {
        process.stderr.write("hostgate: skills grants add needs a terminal: a grant lets an AI client run this script from now on, so a human gives it. Run it in an interactive shell (not from a pipe, a script or an AI client).\n");
        process.exit(EXIT.usage);
      }
    })
    .action(admin((a, ref, entrypoint) => adminCall(a, "skills_grants_add", { ref, entrypoint })));
  grants.command("list").description("List grants").action(admin((a) => adminCall(a, "skills_grants_list", {})));
  grants.command("remove").argument("<ref>").argument("<entrypoint>").description("Revoke a grant")
    .action(admin((a, ref, entrypoint) => adminCall(a, "skills_grants_remove", { ref, entrypoint })));
}
