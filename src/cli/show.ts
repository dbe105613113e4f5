import type { Command } from "commander";
import { actorView, type ActorView } from "../core/caller.ts";
import type { ShowResult, ShowStep } from "../ipc/protocol.ts";
import { adminSocketPath, daemonHintAfter } from "./admin-socket.ts";
import { riskLines, visible } from "./approve.ts";
import { EXIT, commandLine, loadConfigOrExit } from "./common.ts";

/** An actor in words: its uid, socket and label (or the text it was recorded as); the client's own name marked as its claim. */
export function actorLine(a: ActorView): string {
  if (a.raw !== undefined) return a.raw;
  const parts = [a.uid === undefined ? "no uid" : `uid ${a.uid}`, a.socket ? `${a.socket} socket` : null, a.label ?? null, a.client ? `client "${a.client}" (its own claim)` : null];
  return parts.filter((p) => p !== null).join(", ");
}

/** The approval line of one step: not approved, or when, by whom, how, and the separation it got. */
function approvalLine(s: ShowStep): string {
  const a = s.approval;
  if (a === null) return "not approved";
  const how = a.method === null ? "" : a.method === "passkey" ? ` with passkey ${JSON.stringify(a.approver ?? "?")}` : ` (${a.method})`;
  return `${a.approved_at} by ${actorLine(a.approved_by)}${how}; separation ${a.separation ?? "unknown"}`;
}

/** The outcome line of one step: not run yet, its error, or its confirm window and confirmation. */
function outcomeLine(s: ShowStep): string {
  const o = s.outcome;
  if (o === null) return "not run";
  const parts = [s.state];
  if (o.error !== null) parts.push(`${o.error.code}: ${o.error.message}`);
  if (o.confirm_deadline !== null) parts.push(o.confirmed_at === null ? `confirm window until ${o.confirm_deadline}` : `confirmed ${o.confirmed_at} by ${o.confirmed_by === null ? "?" : actorLine(o.confirmed_by)}`);
  return parts.join("; ");
}

/**
 * The `hostgate show` screen: each shown step with its plan, host, action, risks, state, approval (who, how,
 * separation), outcome and exact preview. Every string passes through `visible` (it comes from a plan or a host).
 */
export function renderShow(plan: ShowResult, steps: readonly ShowStep[]): string {
  const n = plan.steps.length;
  const lines = steps.flatMap((s) => [
    `Transaction  ${s.transaction_id} (step ${s.seq} of ${n} of plan ${plan.plan_id})`,
    `Host         ${s.host}`,
    `Action       ${s.action_name} ${JSON.stringify(s.params)}`,
    ...riskLines(s),
    `State        ${s.state}`,
    `Approval     ${approvalLine(s)}`,
    `Outcome      ${outcomeLine(s)}`,
    `Preview hash ${s.preview_hash}`,
    "",
    s.preview.text,
    "",
  ]);
  return visible(lines.join("\n"));
}

/** A show answer for --json: the planner's actor as an object (core/caller.ts actorView), not its JSON text. */
export function showJson(plan: ShowResult, steps: readonly ShowStep[]): Omit<ShowResult, "actor"> & { actor: ActorView } {
  return { ...plan, actor: actorView(plan.actor), steps: [...steps] };
}

/**
 * `hostgate show <id>`: one transaction (or every step of a plan, given a plan id or a prefix of at least 8
 * characters) with its preview, state, approval and outcome, from the admin socket. Read-only; `--json` prints the
 * daemon's answer with the actor as an object.
 */
export function registerShowCommand(program: Command): void {
  program
    .command("show")
    .description("Show one transaction (or every step of a plan): preview, state, approval, outcome (admin socket).")
    .argument("<id>", "a transaction_id, a plan_id, or a unique prefix of at least 8 characters of either")
    .option("--socket <path>", "admin socket (default: the daemon the MCP fronts use, by the same rule)")
    .option("-c, --config <path>", "configuration file the fronts use (daemon.* sockets, state.dir)")
    .option("--json", "print it as JSON")
    .action(async (id: string, opts: { socket?: string; config?: string; json?: boolean }) => {
      const { socketAdminClient } = await import("../ipc/socket-client.ts");
      const target = await adminSocketPath(opts.socket, loadConfigOrExit(opts.config));
      const admin = socketAdminClient(target.path, commandLine());
      const r = await admin.call("show", { transaction_id: id }).finally(() => admin.close());
      if (!r.ok) {
        process.stderr.write(`hostgate: ${r.error.message}${r.error.hint ? `\n${r.error.hint}` : ""}\n${r.error.code === "unknown_transaction" ? `${target.hint}\n` : daemonHintAfter(r.error, target)}`);
        process.exit(EXIT.failure);
      }
      const one = r.value.steps.filter((s) => s.transaction_id === id);
      const steps = one.length === 1 ? one : r.value.steps;
      process.stdout.write(opts.json ? `${JSON.stringify(showJson(r.value, steps), null, 2)}\n` : renderShow(r.value, steps));
      process.exit(EXIT.ok);
    });
}
