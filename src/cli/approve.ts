import { createInterface } from "node:readline/promises";
import type { Command } from "commander";
import type { ShowResult, ShowStep } from "../ipc/protocol.ts";
import { PASSKEY_ROUTE } from "../core/approval-proof.ts";
import { adminSocketPath } from "./admin-socket.ts";
import { EXIT, commandLine, loadConfigOrExit } from "./common.ts";
import { visible } from "../core/visible-text.ts";

export { visible };

/** Params on one line for the header, cut at 300 characters: the full change is in the preview below. */
function paramsLine(params: Record<string, unknown>): string {
  const text = JSON.stringify(params);
  return text.length <= 300 ? text : `${text.slice(0, 300)}… (${text.length} characters; the full change is shown below)`;
}

/** Who planned it, in words: the client as it named itself (untrusted), its uid, and how the steps were made. */
function plannedByLine(plan: ShowResult): string {
  const p = plan.planned_by;
  const who = `${p.client === null ? "an unnamed client" : `client "${p.client}" (its own claim)`}${p.uid === null ? "" : ` as uid ${p.uid}`}`;
  const how = p.planner === "llm" ? "steps proposed by the LLM planner" : p.planner === "deterministic" ? "steps from hostgate's rules" : p.planner === "explicit" ? "explicit steps written by the client" : "unknown planner";
  return `${who}, ${how}, at ${plan.created_at}`;
}

/** Cuts the intent for the screen; the full text is in the audit entry of the plan. */
function intentLine(intent: string | null): string {
  if (intent === null) return "(none: explicit steps)";
  const one = JSON.stringify(intent);
  return one.length <= 400 ? one : `${one.slice(0, 400)}… (${intent.length} characters)`;
}

/** The separation this approval would get, before the human confirms (the daemon decides; this only shows it). */
function separationLine(a: ShowResult["approval"]): string {
  if (a.separation === "separated") return `separated (${a.facts})`;
  return `NONE (${a.facts})${a.refused ? ": the daemon refuses same-user approvals (approval.same_user: deny)" : ": it will be labelled separation: none everywhere; an assistant running as your user could have given it"}`;
}

/**
 * The two risk levels a step can carry, each labelled (issue 22): the action's own level from the catalogue
 * (what kind of change it is: RunCommand is always high) and, for a step that runs a command line, the risk
 * engine's rating of that exact line (the preview's `intended.risk_level`). Returns one or two screen lines.
 * The plan's highest action level sets what the human must type ({@link confirmationWord}).
 */
export function riskLines(step: Pick<ShowStep, "risk_level" | "action_name" | "preview">): string[] {
  const action = `Action risk  ${step.risk_level.toUpperCase()} (the catalogue's level for ${step.action_name})`;
  const intended = step.preview.intended as { risk_level?: unknown } | undefined;
  const command = typeof intended?.risk_level === "string" ? intended.risk_level : null;
  return command === null ? [action] : [action, `Command risk ${command.toUpperCase()} (the risk engine's rating of this command line)`];
}

/**
 * Why a step in `state` cannot be approved and what to do instead, or null when it is `planned`. `id`: the
 * step's transaction id. Said before the review screen is printed, so nobody reads a preview they cannot approve.
 */
export function notApprovable(state: string, id: string): string | null {
  switch (state) {
    case "planned": return null;
    case "approved": return `${id} is already approved: its receipt was printed when it was approved. If the receipt is lost, let it expire (15 minutes after the approval) and ask the assistant to plan the change again.`;
    case "expired": return `${id} expired before anyone approved it. Ask the assistant to plan the change again, then approve the new plan.`;
    case "rejected": return `${id} was rejected. Ask the assistant to plan the change again if it is still wanted.`;
    case "executing": return `${id} is running now; nothing is left to approve. Its result will be in history.`;
    default: return `${id} has already run (state ${state}); nothing is left to approve. See its result with the history tool or hostgate audit. Plan again to repeat the change.`;
  }
}

/**
 * Why a plan cannot be approved, naming its first step that is not `planned` (issue 22: one step closed makes
 * the whole plan unapprovable), or null when every step is planned.
 */
export function planNotApprovable(plan: Pick<ShowResult, "steps">): string | null {
  const n = plan.steps.length;
  for (const step of plan.steps) {
    const why = notApprovable(step.state, step.transaction_id);
    if (why !== null) return n === 1 ? why : `step ${step.seq} of ${n} (${step.action_name}): ${why} The plan's steps are approved together, so none of them can be.`;
  }
  return null;
}

/** The review screen: the plan's facts once, then every step with its host, action, risks, hash and exact preview. */
export function renderPlan(plan: ShowResult): string {
  const n = plan.steps.length;
  const steps = plan.steps.flatMap((step) => [
    `── Step ${step.seq} of ${n} ──`,
    `Transaction  ${step.transaction_id}`,
    `Host         ${step.host}`,
    `Action       ${step.action_name} ${paramsLine(step.params)}`,
    ...riskLines(step),
    `State        ${step.state}`,
    `Preview hash ${step.preview_hash}`,
    "",
    step.preview.text,
    "",
  ]);
  return visible([
    `Plan         ${plan.plan_id} (${n === 1 ? "1 step" : `${n} steps, run in this order: each only after the one before it succeeded`})`,
    `Risk         ${plan.risk_level.toUpperCase()} (${n === 1 ? "the step's" : "the highest of its steps"}; it sets what you must type)`,
    `Planned by   ${plannedByLine(plan)}`,
    `Intent       ${intentLine(plan.planned_by.intent)}`,
    `Separation   ${separationLine(plan.approval)}`,
    "",
    ...steps,
  ].join("\n"));
}

/** What the human must type: "yes" for a low/medium-risk plan; the plan id's first 8 characters above that. */
export function confirmationWord(plan: Pick<ShowResult, "risk_level" | "plan_id">): string {
  return plan.risk_level === "high" || plan.risk_level === "critical" ? plan.plan_id.slice(0, 8) : "yes";
}

/**
 * What approve prints about its witness, in the terms `hostgate audit verify --witness` answers in: intact
 * (exit 0) only while the approval is the chain's newest entry; once anything is recorded after it (the
 * execute, another plan) unanchored (exit 3) saying the witness matches, broken (exit 1) if the record up to it
 * was cut or changed (core/audit/anchor.ts).
 */
export function witnessText(head: { seq: number; hash: string }): string {
  const w = `${head.seq}:${head.hash}`;
  return [
    `Audit witness:    ${w}`,
    `Keep it off this host. \`hostgate audit verify --witness ${w}\` checks that the audit chain still holds this`,
    `approval (seq ${head.seq}): it answers intact (exit 0) while nothing newer is recorded; after the execute or any`,
    `later entry, unanchored (exit 3) with "the witness at seq ${head.seq} matches" (newer entries need a newer`,
    "witness: execute returns one as checkpoint); broken (exit 1) means the record was cut or changed.",
    "",
  ].join("\n");
}

/**
 * `hostgate approve <id>`: a human, at a terminal, reads every step of one plan (named by its plan id or any of
 * its transaction ids) with its exact preview and risks, confirms once, and gets the plan's one-time receipt
 * printed on stdout. Runs only on a TTY (a receipt is a human act, not a pipe's), and talks only to the admin
 * socket; the approval binds the exact steps and preview hashes shown. `hostgate reject <id>` refuses a plan.
 */
export function registerApproveCommands(program: Command): void {
  program
    .command("approve")
    .description("Review every step of a planned change and, if you confirm, print its one-time approval receipt (admin socket).")
    .argument("<id>", "the plan_id or any transaction_id of the plan, or a unique prefix of at least 8 characters (`hostgate pending` lists them)")
    .option("--socket <path>", "admin socket (default: the daemon the MCP fronts use, by the same rule)")
    .option("-c, --config <path>", "configuration file the fronts use (daemon.* sockets, state.dir)")
    .action(async (id: string, opts: { socket?: string; config?: string }) => {
      if (!process.stdin.isTTY || !process.stdout.isTTY) {
        process.stderr.write("hostgate: approve needs a terminal: a human reads the preview and confirms it. Run it in an interactive shell.\n");
        process.exit(EXIT.usage);
      }
      const { socketAdminClient } = await import("../ipc/socket-client.ts");
      const target = await adminSocketPath(opts.socket, loadConfigOrExit(opts.config));
      const admin = socketAdminClient(target.path, commandLine());
      try {
        const shown = await admin.call("show", { transaction_id: id });
        if (!shown.ok) {
          process.stderr.write(`hostgate: ${shown.error.message}${shown.error.hint ? `\n${shown.error.hint}` : ""}\n`);
          if (shown.error.code === "unknown_transaction") process.stderr.write(`${target.hint}\n`);
          process.exit(EXIT.failure);
        }
        // Only a plan whose steps are all planned can be approved: say so, and what to do, before any review screen.
        const why = planNotApprovable(shown.value);
        if (why !== null) {
          process.stderr.write(`hostgate: cannot approve: ${why}\n`);
          process.exit(EXIT.failure);
        }
        process.stdout.write(renderPlan(shown.value));
        // A plan that needs a passkey: a terminal approval cannot mint its receipt (core/approval-proof.ts).
        if (shown.value.approval.passkey_required !== null) {
          process.stderr.write(`hostgate: this plan needs a passkey approval (${shown.value.approval.passkey_required}). ${PASSKEY_ROUTE}\n`);
          process.exit(EXIT.failure);
        }
        if (shown.value.approval.refused) {
          process.stderr.write(`hostgate: this approval would be refused: ${shown.value.approval.facts}. Approve as another user than the assistant's (root, or a member of daemon.admin_group, with hostgate daemon as a service).\n`);
          process.exit(EXIT.failure);
        }
        const word = confirmationWord(shown.value);
        const n = shown.value.steps.length;
        const rl = createInterface({ input: process.stdin, output: process.stdout });
        // End of input (Ctrl+D) or an interrupted prompt is a "no", never a crash.
        if (n > 1) process.stdout.write(`One approval covers all ${n} steps above; the receipt runs each of them once, in this order.\n`);
        const answer = (await rl.question(`Type ${JSON.stringify(word)} to approve, anything else to cancel: `).catch(() => "")).trim();
        rl.close();
        if (answer !== word) {
          process.stdout.write("Not approved.\n");
          process.exit(EXIT.failure);
        }
        // The full plan id and exactly the steps and hashes the human was shown (a typed prefix was resolved by show).
        const steps = shown.value.steps.map((s) => ({ transaction_id: s.transaction_id, preview_hash: s.preview_hash }));
        const approved = await admin.call("approve", { transaction_id: shown.value.plan_id, steps });
        if (!approved.ok) {
          process.stderr.write(`hostgate: ${approved.error.message}${approved.error.hint ? `\n${approved.error.hint}` : ""}\n`);
          process.exit(EXIT.failure);
        }
        const head = approved.value.checkpoint;
        if (approved.value.separation === "none") {
          // Approved here at a terminal as the same user as the planner: method same-user in the audit entry and history.
          process.stdout.write(`\nSeparation:       NONE (${approved.value.separation_facts}). This approval is labelled separation: none everywhere; an assistant running as your user could have given it.\n`);
        }
        const covers = n === 1 ? "this step" : `all ${n} steps of plan ${approved.value.plan_id}, in order (each step once)`;
        process.stdout.write(`\nApproval receipt: ${approved.value.receipt}\nExpires:          ${approved.value.expires_at} (single use per step)\nGive it to the assistant as approval_receipt: it runs ${covers}.\n`);
        // The chain head including this approval: whoever keeps it can later prove the record was not cut below it.
        if (head) process.stdout.write(witnessText(head));
      } finally {
        await admin.close();
      }
    });
  program
    .command("reject")
    .description("Reject every planned step of a plan so it can never be approved (admin socket).")
    .argument("<id>", "the plan_id or any transaction_id of the plan, or a unique prefix of at least 8 characters (`hostgate pending` lists them)")
    .option("--socket <path>", "admin socket (default: the daemon the MCP fronts use, by the same rule)")
    .option("-c, --config <path>", "configuration file the fronts use (daemon.* sockets, state.dir)")
    .action(async (id: string, opts: { socket?: string; config?: string }) => {
      const { socketAdminClient } = await import("../ipc/socket-client.ts");
      const target = await adminSocketPath(opts.socket, loadConfigOrExit(opts.config));
      const admin = socketAdminClient(target.path, commandLine());
      // A typed prefix is resolved by show first; the full plan id is what is rejected and printed.
      const shown = await admin.call("show", { transaction_id: id });
      const r = shown.ok ? await admin.call("reject", { transaction_id: shown.value.plan_id }) : shown;
      await admin.close();
      if (!r.ok) {
        process.stderr.write(`hostgate: ${r.error.message}${r.error.hint ? `\n${r.error.hint}` : ""}\n${r.error.code === "unknown_transaction" ? `${target.hint}\n` : ""}`);
        process.exit(EXIT.failure);
      }
      const lines = shown.ok ? shown.value.steps.filter((s) => r.value.transaction_ids.includes(s.transaction_id)).map((s) => `  ${s.transaction_id}  ${visible(`${s.action_name} on ${s.host}: ${s.preview.summary}`)}`) : [];
      process.stdout.write(`Rejected plan ${r.value.plan_id} (${r.value.transaction_ids.length} step${r.value.transaction_ids.length === 1 ? "" : "s"}):\n${lines.join("\n")}\n`);
    });
}
