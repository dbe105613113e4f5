import { z } from "zod";
import type { ActionContext, Preview } from "../action.ts";
import { HostgateError } from "../../errors.ts";
import { shellJoin } from "../../inventory/target.ts";

/**
 * The shape shared by the issue-24 mutating actions that change a host by running fixed tools (useradd, usermod,
 * gpasswd, apt-mark, logrotate, systemctl…): `plan` reads the host (probe only) and says what it sees and which argv
 * would bring it to the asked state; the preview renders that; apply plans again (execute has already checked, under
 * the lock, that the preview still hashes the same) and runs the argv through the mutator. An empty `steps` is
 * "nothing to do": the second preview after an apply says so, and its apply runs nothing.
 */
export interface PlannedChange {
  /** One line: what changes, or `…: nothing to do`. */
  summary: string;
  /** Structured state before (deterministic for the same host state: it is part of the preview_hash). */
  current: unknown;
  /** Structured state after. */
  intended: unknown;
  /** The argv to run in order, each with the program name as argv[0] (resolved on PATH at apply). */
  steps: string[][];
  /** Extra lines for the approver (a diff, a file to be written); shown after the argv. */
  detail?: string;
  warnings?: string[];
  /**
   * New files root creates before the steps run and the steps then use by name (HostMutator.createRootFile: a
   * root-only directory chain, O_EXCL, mode and size set on the descriptor), e.g. a swap file.
   */
  creates?: { path: string; bytes: number; mode: number }[];
  /** Files to write before the steps run (`writeFileAtomic`, mode given), e.g. a timer unit. */
  writes?: { path: string; content: string; mode: number; expectedSha256: string | null }[];
}

/** Renders a planned change as a preview: summary, each argv, the detail, warnings. */
export function renderPlanned(c: PlannedChange): Preview {
  const lines = [c.summary];
  for (const f of c.creates ?? []) lines.push(`will create: ${f.path} (new file, ${f.bytes} bytes allocated, mode ${f.mode.toString(8).padStart(4, "0")})`);
  for (const w of c.writes ?? []) lines.push(`will write: ${w.path} (mode ${w.mode.toString(8).padStart(4, "0")})`);
  // Quoted as a shell would read it (`--comment 'Alice Example'`), so the approver sees where each argument ends.
  for (const s of c.steps) lines.push(`will run: ${shellJoin(s)}`);
  if (c.steps.length === 0 && (c.writes ?? []).length === 0 && (c.creates ?? []).length === 0) lines.push("(nothing will run)");
  if (c.detail) lines.push("", c.detail.replace(/\n$/, ""));
  if (c.warnings && c.warnings.length > 0) lines.push("", "WARNINGS:", ...c.warnings.map((w) => `  !! ${w}`));
  return { summary: c.summary, text: `${lines.join("\n")}\n`, current: c.current, intended: c.intended, ...(c.warnings && c.warnings.length > 0 ? { warnings: c.warnings } : {}) };
}

/** What these actions return after apply: what ran, and each tool's exit. */
export const plannedApplyOutput = z.object({
  summary: z.string(),
  changed: z.boolean(),
  ran: z.array(z.object({ argv: z.array(z.string()), exit_code: z.number(), duration_ms: z.number() })),
});
export type PlannedApplyOutput = z.infer<typeof plannedApplyOutput>;

const TAIL = 2000;

/**
 * Creates the planned new files, writes the planned files, then runs the planned argv in order through the mutator, each resolved on PATH
 * (`unavailable` when a tool is missing). A non-zero exit stops the run: `action_failed` with the tool's
 * output tail and what already ran; a timeout is `timeout` (outcome unknown).
 */
export async function applyPlanned(ctx: ActionContext, c: PlannedChange, timeoutMs = 120_000): Promise<PlannedApplyOutput> {
  for (const f of c.creates ?? []) await ctx.mutator.createRootFile(f.path, { mode: f.mode, bytes: f.bytes });
  for (const w of c.writes ?? []) await ctx.mutator.writeFileAtomic(w.path, w.content, { mode: w.mode, expectedSha256: w.expectedSha256 });
  const ran: PlannedApplyOutput["ran"] = [];
  for (const step of c.steps) {
    const path = await ctx.host.which(step[0]!);
    if (!path) throw new HostgateError("unavailable", `${step[0]} is not installed on this host; nothing after it ran.`, { details: { ran } });
    const r = await ctx.mutator.run([path, ...step.slice(1)], { timeoutMs, maxOutputBytes: 1024 * 1024, env: { LC_ALL: "C", DEBIAN_FRONTEND: "noninteractive" } });
    const details = { argv: step, exit_code: r.exit_code, signal: r.signal, stdout_tail: r.stdout.slice(-TAIL), stderr_tail: r.stderr.slice(-TAIL), ran };
    if (r.timed_out) throw new HostgateError("timeout", `${step.join(" ")} did not finish within ${Math.round(timeoutMs / 1000)} s and was killed; the outcome is unknown.`, { details });
    if (r.exit_code !== 0) {
      const why = `${r.stderr}\n${r.stdout}`.split("\n").map((l) => l.trim()).filter(Boolean).at(0) ?? "";
      throw new HostgateError("action_failed", `${step[0]} failed (exit ${r.exit_code ?? r.signal}): ${why}`, { details });
    }
    ran.push({ argv: step, exit_code: 0, duration_ms: r.duration_ms });
  }
  const changed = ran.length > 0 || (c.writes ?? []).length > 0 || (c.creates ?? []).length > 0;
  return { summary: changed ? c.summary : `${c.summary.replace(/: nothing to do$/, "")}: nothing to do`, changed, ran };
}
