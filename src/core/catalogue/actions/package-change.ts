import { z } from "zod";
import type { ActionContext, Preview } from "../action.ts";
import { HostgateError } from "../../errors.ts";
import type { ExecResult } from "../../exec.ts";
import { parseAptSimulation, renderChanges, type PackageChange } from "./apt-simulation.ts";
import { parseDnfSimulation } from "./dnf-simulation.ts";

/**
 * Shared logic of InstallPackage and RemovePackage: simulate with the package tool, render the preview,
 * and run the real transaction. The argv of the simulation and of the real run differ only in the
 * simulate/assume-no flag versus the assume-yes flags, so the preview shows exactly what apply will do.
 */

/** The package operation. `purge` also deletes configuration files (Debian only; rpm has no purge). */
export type PackageOp = "install" | "remove" | "purge";

/** Longest a real install or removal may run, in milliseconds (downloads included). */
export const PACKAGE_APPLY_TIMEOUT_MS = 30 * 60_000;
const SIMULATE_TIMEOUT_MS = 120_000;
const TAIL_CHARS = 4000;

/** The apt/dnf sub-command and flags after the mode flag, ending with `-- NAME`. */
function operationArgs(family: string, op: PackageOp, name: string): string[] {
  if (family === "debian") return op === "install" ? ["install", "--no-install-recommends", "--", name] : [op, "--", name];
  return ["--setopt=install_weak_deps=False", op === "install" ? "install" : "remove", "--", name];
}

/** The argv that simulates the operation (read-only) on the context's family. */
export function simulationArgv(family: string, op: PackageOp, name: string): string[] {
  return family === "debian" ? ["apt-get", "-s", ...operationArgs(family, op, name)] : ["dnf", "--assumeno", ...operationArgs(family, op, name)];
}

/**
 * The argv that performs the operation. Debian: `-y`, and dpkg keeps existing configuration files on
 * conflicts (`--force-confdef --force-confold`) because no one can answer dpkg's prompt.
 */
export function applyArgv(family: string, op: PackageOp, name: string): string[] {
  if (family === "debian") {
    return ["apt-get", "-y", "-o", "Dpkg::Options::=--force-confdef", "-o", "Dpkg::Options::=--force-confold", ...operationArgs(family, op, name)];
  }
  return ["dnf", "-y", ...operationArgs(family, op, name)];
}

/** Resolves argv[0] on PATH; `unavailable` when the package tool is missing. */
async function resolve(ctx: ActionContext, argv: string[]): Promise<string[]> {
  const path = await ctx.host.which(argv[0]!);
  if (!path) throw new HostgateError("unavailable", `${argv[0]} is not installed on this host.`);
  return [path, ...argv.slice(1)];
}

/** Warnings from dpkg's own fields for packages about to be removed: `Essential: yes`, `Priority: required`. */
async function dpkgRemovalWarnings(ctx: ActionContext, changes: readonly PackageChange[], known: ReadonlySet<string>): Promise<string[]> {
  const names = changes.filter((c) => c.action === "remove" || c.action === "purge").map((c) => c.name);
  if (names.length === 0) return [];
  const r = await ctx.host.run(await resolve(ctx, ["dpkg-query", "-W", "-f=${Package}\t${Essential}\t${Priority}\n", "--", ...names]), { timeoutMs: 30_000 });
  const out: string[] = [];
  for (const line of r.stdout.split("\n")) {
    const [pkg, essential, priority] = line.split("\t");
    if (!pkg) continue;
    if (essential === "yes" && !known.has(pkg)) out.push(`ESSENTIAL package would be removed: ${pkg} (dpkg Essential: yes).`);
    if (priority === "required") out.push(`${pkg} has Priority: required; removing it can break the system.`);
  }
  return out;
}

/** Simulates the operation: the package changes it would make and warnings for a human. */
export async function simulate(ctx: ActionContext, op: PackageOp, name: string): Promise<{ argv: string[]; changes: PackageChange[]; warnings: string[] }> {
  const argv = simulationArgv(ctx.family, op, name);
  const r = await ctx.host.run(await resolve(ctx, argv), { timeoutMs: SIMULATE_TIMEOUT_MS, maxOutputBytes: 4 * 1024 * 1024 });
  const all = `${r.stdout}\n${r.stderr}`;
  if (/Unable to locate package|No match for argument|No packages marked for removal|Unable to find a match/.test(all)) {
    throw new HostgateError("not_found", `No package named ${name} is ${op === "install" ? "available" : "installed"}.`, { hint: "Use search_packages or get_package_info to find the exact name." });
  }
  if (ctx.family === "debian") {
    if (r.exit_code !== 0) throw new HostgateError("backend_error", `apt-get simulation failed (exit ${r.exit_code ?? r.signal}): ${firstError(r)}`);
    const sim = parseAptSimulation(r.stdout);
    const warnings = [...sim.warnings, ...(await dpkgRemovalWarnings(ctx, sim.changes, new Set(sim.essential_removals)))];
    if (op === "install") {
      const removed = sim.changes.filter((c) => c.action === "remove" || c.action === "purge").map((c) => c.name);
      if (removed.length > 0) warnings.push(`Installing ${name} also REMOVES: ${removed.join(", ")}.`);
    }
    return { argv, changes: sim.changes, warnings };
  }
  // dnf --assumeno exits 1 ("Operation aborted") after printing the transaction; other codes are failures.
  if (r.exit_code !== 0 && r.exit_code !== 1) throw new HostgateError("backend_error", `dnf simulation failed (exit ${r.exit_code ?? r.signal}): ${firstError(r)}`);
  const sim = parseDnfSimulation(all);
  if (op === "purge") sim.warnings.push("purge has no rpm equivalent: this is a plain removal (rpm keeps changed configuration files as .rpmsave).");
  return { argv, changes: sim.changes, warnings: sim.warnings };
}

/** The first `E:`/`Error` line of a tool's output, or its last stderr line. */
function firstError(r: ExecResult): string {
  const lines = `${r.stderr}\n${r.stdout}`.split("\n").map((l) => l.trim()).filter(Boolean);
  return lines.find((l) => /^(E:|Error)/.test(l)) ?? lines.at(-1) ?? "";
}

/** Builds the preview of a package operation from its simulation. */
export async function packagePreview(ctx: ActionContext, op: PackageOp, name: string): Promise<Preview> {
  const sim = await simulate(ctx, op, name);
  const verb = { install: "Install", remove: "Remove", purge: "Purge" }[op];
  const summary = sim.changes.length === 0 ? `${verb} ${name}: nothing to do` : `${verb} ${name}: ${sim.changes.length} package change(s)`;
  const lines = [
    summary,
    `will run: ${applyArgv(ctx.family, op, name).join(" ")}`,
    `(simulated with: ${sim.argv.join(" ")})`,
    "",
    renderChanges(sim.changes),
  ];
  if (sim.warnings.length > 0) lines.push("", "WARNINGS:", ...sim.warnings.map((w) => `  !! ${w}`));
  return { summary, text: `${lines.join("\n")}\n`, intended: { changes: sim.changes }, warnings: sim.warnings };
}

/** What InstallPackage / RemovePackage return after the real run. */
export const packageApplyOutput = z.object({
  name: z.string(),
  operation: z.enum(["install", "remove", "purge"]),
  summary: z.string(),
  exit_code: z.number(),
  duration_ms: z.number(),
  stdout_tail: z.string(),
});

/**
 * Runs the real operation with DEBIAN_FRONTEND=noninteractive. Throws `timeout` (outcome unknown: the
 * package database may be mid-transaction) or `action_failed` (non-zero exit, with the output tail).
 */
export async function applyPackageOp(ctx: ActionContext, op: PackageOp, name: string): Promise<z.infer<typeof packageApplyOutput>> {
  const argv = await resolve(ctx, applyArgv(ctx.family, op, name));
  const r = await ctx.mutator.run(argv, { timeoutMs: PACKAGE_APPLY_TIMEOUT_MS, maxOutputBytes: 4 * 1024 * 1024, env: { DEBIAN_FRONTEND: "noninteractive" } });
  const details = { argv: r.argv, exit_code: r.exit_code, signal: r.signal, stdout_tail: r.stdout.slice(-TAIL_CHARS), stderr_tail: r.stderr.slice(-TAIL_CHARS) };
  if (r.timed_out) {
    throw new HostgateError("timeout", `${argv[0]} ${op} ${name} did not finish within ${PACKAGE_APPLY_TIMEOUT_MS / 60_000} minutes and was killed; the outcome is unknown.`, {
      hint: "Check get_package_info and the package tool's log (/var/log/apt/term.log or /var/log/dnf.log) before retrying.",
      details,
    });
  }
  if (r.exit_code !== 0) {
    throw new HostgateError("action_failed", `${op} ${name} failed (exit ${r.exit_code ?? r.signal}): ${firstError(r)}`, { details });
  }
  return { name, operation: op, summary: `${op} ${name} succeeded`, exit_code: r.exit_code, duration_ms: r.duration_ms, stdout_tail: details.stdout_tail };
}
