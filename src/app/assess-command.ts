import { z } from "zod";
import { HostgateError } from "../core/errors.ts";
import { createRiskEngine, LIMITS, type RiskAssessment, type RiskEngine } from "../core/risk/index.ts";

/**
 * plan_command / `hostgate risk`: judge a shell command line with the command-risk engine, without
 * connecting anywhere or changing anything. Until the policy engine exists the decision is the risk
 * engine's alone, and the output says so (`policy.source = "risk_engine_only"`).
 */

const C0_EXCEPT_TAB_NEWLINE = /[\x00-\x08\x0b-\x1f]/;

/** Wire input (snake_case). `command` ≤ 64 KiB of UTF-8, no NUL or C0 controls other than tab and newline. */
export const AssessCommandInputSchema = z.strictObject({
  command: z.string().min(1, "command is empty").describe("The shell command line to judge, as it would be passed to the interpreter."),
  target: z.string().max(1024).optional().describe("Host the command is meant for (informational until the policy engine exists)."),
  interpreter: z.string().max(64).optional().describe("Shell that will run the line: sh, bash, dash, zsh… (default bash). Anything else is treated as code the engine cannot read."),
});
export type AssessCommandInput = z.infer<typeof AssessCommandInputSchema>;

const SpanSchema = z.object({ start: z.number().int(), end: z.number().int() }).describe("UTF-8 byte offsets into `command`, end exclusive.");
const LevelSchema = z.enum(["low", "medium", "high", "critical"]);

/** Wire output (snake_case). */
export const CommandAssessmentSchema = z.object({
  decision: z.enum(["allow", "deny", "require_approval"]),
  risk_level: LevelSchema,
  reason: z.string().describe("One line: the most severe signal, or why the command is allowed."),
  signals: z.array(z.object({ id: z.string(), severity: LevelSchema, reason: z.string(), span: SpanSchema })),
  commands: z.array(z.object({ name: z.string(), argv: z.array(z.string()), via: z.array(z.string()), depth: z.number().int(), dynamic: z.boolean(), span: SpanSchema })),
  target: z.string().nullable(),
  interpreter: z.string(),
  policy: z.object({ source: z.literal("risk_engine_only"), note: z.string() }),
});
export type CommandAssessment = z.infer<typeof CommandAssessmentSchema>;

const POLICY_NOTE = "No policy engine is configured yet: this is the command-risk engine's decision alone. A policy may later deny more, never allow what the engine denies.";

let engine: Promise<RiskEngine> | null = null;

/** The shared engine, created on first use (loads the tree-sitter-bash wasm lazily). */
export function defaultRiskEngine(): Promise<RiskEngine> {
  engine ??= import("../adapters/shell-parser.ts").then(async (m) => createRiskEngine(await m.loadShellParser())).catch((err: unknown) => {
    engine = null;
    throw err;
  });
  return engine;
}

function utf8Bytes(s: string): number {
  return new TextEncoder().encode(s).length;
}

/**
 * Validates `input` and judges its command. Throws HostgateError `invalid_params` for bad input (unknown
 * keys, empty or oversized command, control characters), with a hint saying what to change.
 */
export async function assessCommand(input: unknown, deps: { engine?: RiskEngine } = {}): Promise<CommandAssessment> {
  const parsed = AssessCommandInputSchema.safeParse(input);
  if (!parsed.success) {
    throw new HostgateError("invalid_params", `plan_command: ${parsed.error.issues.map((i) => `${i.path.join(".") || "input"}: ${i.message}`).join("; ")}`, {
      hint: "Pass { command, target?, interpreter? } with command a non-empty string.",
    });
  }
  const { command, target, interpreter } = parsed.data;
  const bytes = utf8Bytes(command);
  if (bytes > LIMITS.maxInputBytes) {
    throw new HostgateError("invalid_params", `plan_command: command is ${bytes} bytes; the limit is ${LIMITS.maxInputBytes}`, {
      hint: "Split the work into smaller commands.",
      details: { bytes, limit: LIMITS.maxInputBytes },
    });
  }
  const bad = C0_EXCEPT_TAB_NEWLINE.exec(command);
  if (bad) {
    throw new HostgateError("invalid_params", `plan_command: command contains control character U+${bad[0].charCodeAt(0).toString(16).padStart(4, "0").toUpperCase()} at index ${bad.index}`, {
      hint: "Remove NUL and other control characters; only tab and newline are accepted.",
      details: { index: bad.index },
    });
  }
  const e = deps.engine ?? (await defaultRiskEngine());
  const result = e.assess(command, { interpreter: interpreter ?? "bash" });
  return toWire(result, target ?? null, interpreter ?? "bash");
}

function toWire(r: RiskAssessment, target: string | null, interpreter: string): CommandAssessment {
  const top = r.signals[0];
  const reason = top ? `command risk: ${top.reason}` : "command risk: only read-only commands the engine knows";
  return {
    decision: r.decision,
    risk_level: r.risk_level,
    reason,
    signals: r.signals,
    commands: r.commands,
    target,
    interpreter,
    policy: { source: "risk_engine_only", note: POLICY_NOTE },
  };
}
