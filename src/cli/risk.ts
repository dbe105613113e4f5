import type { Command } from "commander";
import type { CommandAssessment } from "../app/assess-command.ts";
import { HostgateError, toHostgateError } from "../core/errors.ts";

/** Exit codes of `hostgate risk`: allow 0, require_approval 3, deny 4, bad input 2. */
export const RISK_EXIT = { allow: 0, require_approval: 3, require_biometric: 3, deny: 4, invalid: 2 } as const;

/** Where the command writes (tests pass their own). */
export interface RiskIo {
  out: (text: string) => void;
  err: (text: string) => void;
  setExitCode: (code: number) => void;
}

const defaultIo: RiskIo = {
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
  setExitCode: (c) => { process.exitCode = c; },
};

/**
 * Adds `hostgate risk "<command>" [--json] [--interpreter X]` to `program`: judges the command with the
 * risk engine (no connection, no change) and prints a summary or the plan_command JSON.
 */
export function registerRiskCommand(program: Command, io: RiskIo = defaultIo): Command {
  return program
    .command("risk")
    .description("Judge a shell command line with the command-risk engine (nothing runs). Exit 0 allow, 3 require_approval, 4 deny, 2 bad input.")
    .argument("<command>", "the command line, quoted as one argument")
    .option("--json", "print the plan_command result as JSON")
    .option("--interpreter <name>", "shell that would run it (default bash)")
    .action(async (command: string, opts: { json?: boolean; interpreter?: string }) => {
      try {
        const [{ assessCommand }, { loadRiskEngine }] = await Promise.all([import("../app/assess-command.ts"), import("../adapters/shell-parser.ts")]);
        const result = await assessCommand({ command, ...(opts.interpreter ? { interpreter: opts.interpreter } : {}) }, { engine: await loadRiskEngine() });
        io.out(opts.json ? JSON.stringify(result, null, 2) + "\n" : summary(command, result));
        io.setExitCode(RISK_EXIT[result.decision]);
      } catch (err) {
        const e = toHostgateError(err);
        if (opts.json) io.out(JSON.stringify({ error: { code: e.code, message: e.message, hint: e.hint ?? null } }) + "\n");
        else io.err(`hostgate risk: ${e.message}${e.hint ? `\n  ${e.hint}` : ""}\n`);
        io.setExitCode(e instanceof HostgateError && e.code === "invalid_params" ? RISK_EXIT.invalid : 1);
      }
    });
}

function summary(command: string, r: CommandAssessment): string {
  const bytes = new TextEncoder().encode(command);
  const dec = new TextDecoder();
  const lines = [`${r.decision.toUpperCase()} (risk ${r.risk_level}): ${r.reason}`];
  for (const s of r.signals) {
    const excerpt = dec.decode(bytes.slice(s.span.start, Math.min(s.span.end, s.span.start + 60))).replace(/\n/g, "\\n");
    lines.push(`  ${s.severity.padEnd(8)} ${s.id.padEnd(26)} ${s.reason}  [${s.span.start}-${s.span.end}] ${excerpt}`);
  }
  if (r.commands.length) lines.push("commands:");
  for (const c of r.commands.slice(0, 20)) lines.push(`  ${c.via.length ? c.via.join(" > ") + " > " : ""}${c.argv.join(" ")}`);
  if (r.commands.length > 20) lines.push(`  … ${r.commands.length - 20} more`);
  lines.push(`policy: ${r.policy.source} (${r.policy.note})`);
  return lines.join("\n") + "\n";
}
