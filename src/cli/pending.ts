import type { Command } from "commander";
import type { PendingResult } from "../ipc/protocol.ts";
import { adminSocketPath, daemonHintAfter } from "./admin-socket.ts";
import { actorView, parseActor, type ActorView } from "../core/caller.ts";
import { visible } from "./approve.ts";
import { EXIT, commandLine, loadConfigOrExit } from "./common.ts";

/** "42s", "5m", "3h", "2d": how long ago `iso` was, from `now` (ms). */
export function age(iso: string, now: number): string {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86_400)}d`;
}

/**
 * The CLIENT cell: the MCP client name the planning front gave (its own claim, untrusted; cut at 24 characters),
 * read from the transaction's actor (core/caller.ts); `-` when it named none or the actor is an older free-form one.
 */
export function clientOf(actor: string): string {
  const name = parseActor(actor)?.client;
  if (typeof name !== "string" || name === "") return "-";
  const shown = visible(name).replace(/\s+/g, " ");
  return shown.length > 24 ? `${shown.slice(0, 23)}…` : shown;
}

/** The SUMMARY cell of a plan: its one step's action and summary, or its steps' actions in order. */
function planSummary(p: PendingResult["plans"][number]): string {
  if (p.steps.length === 1) return `${p.steps[0]!.action_name}: ${p.steps[0]!.summary}`;
  return p.steps.map((s, i) => `${i + 1}. ${s.action_name}: ${s.summary}`).join("; ");
}

/**
 * The table `hostgate pending` prints, one line per plan: plan id, age, risk (the highest of its steps), host,
 * client, step count and a summary of its steps in order (escaped: it comes from a plan).
 */
export function renderPending(r: PendingResult, now: number, approve = "hostgate approve"): string {
  if (r.plans.length === 0) return "No plans are waiting for approval.\n";
  const rows = r.plans.map((p) => [p.plan_id, age(p.created_at, now), p.risk_level.toUpperCase(), p.host, clientOf(p.actor), String(p.steps.length), visible(planSummary(p)).replace(/\n/g, " ")]);
  const head = ["PLAN", "AGE", "RISK", "HOST", "CLIENT", "STEPS", "SUMMARY"];
  const last = head.length - 1;
  const widths = head.slice(0, last).map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i < last ? c.padEnd(widths[i]!) : c.length > 100 ? `${c.slice(0, 99)}…` : c)).join("  ");
  return `${[line(head), ...rows.map(line)].join("\n")}\n${pendingFooter(r, approve)}`;
}

/**
 * The approve command for whoever just read the admin socket (`hostgate pending` got that far): `sudo hostgate
 * approve` when this runs as root under sudo (`SUDO_USER` set: the user typed sudo to get in, issue 25 leftovers),
 * else `hostgate approve` (root itself, the socket's owner, or a member of its admin group).
 */
export function approveCommandHere(env: NodeJS.ProcessEnv = process.env, uid: number | undefined = process.getuid?.()): string {
  return uid === 0 && env.SUDO_USER ? "sudo hostgate approve" : "hostgate approve";
}

/**
 * Where the plans listed are approved (issue 23): `approve <plan>` (`approve`: approveCommandHere) for those any
 * approval will do; for those that need a passkey (`passkey_required`), the console, named with their short ids.
 */
export function pendingFooter(r: PendingResult, approve = "hostgate approve"): string {
  const passkey = r.plans.filter((p) => p.passkey_required != null);
  const lines: string[] = [];
  if (passkey.length < r.plans.length) lines.push(`Review and approve all steps of one with: ${approve} <plan> (its first 8 characters will do when unique)`);
  if (passkey.length > 0) {
    const ids = passkey.map((p) => p.plan_id.slice(0, 8)).join(", ");
    lines.push(`${passkey.length === r.plans.length ? "These plans need" : `Plan${passkey.length === 1 ? "" : "s"} ${ids} need${passkey.length === 1 ? "s" : ""}`} a passkey: approve in the console (run \`hostgate console\` for a one-time login link); \`hostgate approve\` cannot approve ${passkey.length === 1 ? "it" : "them"}.`);
  }
  return `${lines.join("\n")}\n`;
}

/** A pending answer for --json: each plan's actor as an object (core/caller.ts actorView), not its JSON text. */
export function pendingJson(r: PendingResult): { plans: (Omit<PendingResult["plans"][number], "actor"> & { actor: ActorView })[] } {
  return { plans: r.plans.map((p) => ({ ...p, actor: actorView(p.actor) })) };
}

/** `hostgate pending`: plans waiting for a human, from the admin socket. */
export function registerPendingCommand(program: Command): void {
  program
    .command("pending")
    .description("List plans waiting for approval (admin socket; with no daemon running, read from this user's state directory): plan id, age, risk, host, client, steps, summary")
    .option("--socket <path>", "admin socket (default: the daemon the MCP fronts use, by the same rule)")
    .option("-c, --config <path>", "configuration file the fronts use (daemon.* sockets, state.dir)")
    .option("--limit <n>", "at most this many (default 50)")
    .option("--json", "print them as JSON")
    .action(async (opts: { socket?: string; config?: string; limit?: string; json?: boolean }) => {
      const limit = opts.limit === undefined ? undefined : Number(opts.limit);
      if (limit !== undefined && (!Number.isInteger(limit) || limit < 1 || limit > 1000)) {
        process.stderr.write(`hostgate: --limit must be an integer from 1 to 1000, got ${JSON.stringify(opts.limit)}.\n`);
        process.exit(EXIT.usage);
      }
      const config = loadConfigOrExit(opts.config);
      // No daemon runs (no front, no system daemon): the plans the last front left are in this user's state directory.
      if (opts.socket === undefined && !process.env.HOSTGATE_ADMIN_SOCKET) {
        const [{ locateDaemon }, { socketIsLive, socketAnswer }] = await Promise.all([import("../daemon/locate.ts"), import("../ipc/server.ts")]);
        const where = await locateDaemon(config, socketIsLive, process.env);
        // Offline only when no daemon answers at all: one that refuses this user (EACCES) is running, and the admin
        // call below says how to get access (review s24: it was read as "no daemon is running").
        const nobody = async (p: string | null): Promise<boolean> => p === null || (await socketAnswer(p)) === "none";
        if (where.kind === "embedded" && await nobody(where.agent) && await nobody(where.admin)) {
          const { pendingFromStateDir } = await import("../daemon/pending-offline.ts");
          let offline;
          try {
            offline = pendingFromStateDir(config.state.dir, Date.now(), limit, process.env, config.approval.passkey_required_from ?? null);
          } catch (err) {
            process.stderr.write(`hostgate: no daemon is running, and ${(err as Error).message}\n`);
            process.exit(EXIT.failure);
          }
          const { from, ...r } = offline;
          process.stderr.write(`hostgate: no daemon answers at ${where.agent}; read ${from}. To approve one, start your MCP client (its front runs the daemon) or hostgate serve, then: hostgate approve <plan> (or hostgate console for a plan that needs a passkey). ` +
            "A daemon your clients reach through a configuration file or socket of their own: pass the same --config or --socket.\n");
          process.stdout.write(opts.json ? `${JSON.stringify(pendingJson(r), null, 2)}\n` : renderPending(r, Date.now()));
          process.exit(EXIT.ok);
        }
      }
      const { socketAdminClient } = await import("../ipc/socket-client.ts");
      const target = await adminSocketPath(opts.socket, config);
      const admin = socketAdminClient(target.path, commandLine());
      const r = await admin.call("pending", limit === undefined ? {} : { limit });
      await admin.close();
      if (!r.ok) {
        // A daemon that cannot be reached may be another one than the front's: say which was asked, and how to name the other.
        process.stderr.write(`hostgate: ${r.error.message}${r.error.hint ? `\n${r.error.hint}` : ""}\n${daemonHintAfter(r.error, target)}`);
        process.exit(EXIT.failure);
      }
      process.stdout.write(opts.json ? `${JSON.stringify(pendingJson(r.value), null, 2)}\n` : renderPending(r.value, Date.now(), approveCommandHere()));
      process.exit(EXIT.ok);
    });
}
