import { z } from "zod";
import { defineMutatingAction, type ActionContext, type Preview } from "../action.ts";
import { HostgateError } from "../../errors.ts";
import { parseAptSimulation, renderChanges, type PackageChange } from "./apt-simulation.ts";
import { parseDnfSimulation } from "./dnf-simulation.ts";
import { PACKAGE_APPLY_TIMEOUT_MS } from "./package-change.ts";
import { installedVersions, PACKAGE_NAME, runTool } from "./package-tools.ts";

const params = z.object({
  names: z.array(z.string().regex(PACKAGE_NAME, "exact installed package names such as openssl")).min(1).max(100).optional()
    .describe("Installed packages to upgrade (with what their new versions need). Omit to upgrade every upgradable package"),
}).strict();
type Params = z.infer<typeof params>;

const DPKG_KEEP_CONFIG = ["-o", "Dpkg::Options::=--force-confdef", "-o", "Dpkg::Options::=--force-confold"];

/**
 * The argv (without the simulate / assume-yes flags) for the family. Debian: `upgrade` for everything (never removes
 * a package or installs a new one: kept-back packages stay), `install --only-upgrade --no-install-recommends -- NAMES`
 * for named ones. Fedora: `dnf upgrade [NAMES]` (UNTESTED on a live Fedora host).
 */
function operation(family: string, names: readonly string[] | null): string[] {
  if (family === "debian") return names === null ? ["upgrade"] : ["install", "--only-upgrade", "--no-install-recommends", "--", ...names];
  return names === null ? ["upgrade"] : ["upgrade", "--", ...names];
}
const simulateArgv = (family: string, names: readonly string[] | null): string[] => (family === "debian" ? ["apt-get", "-s", ...operation(family, names)] : ["dnf", "--assumeno", ...operation(family, names)]);
const applyArgv = (family: string, names: readonly string[] | null): string[] => (family === "debian" ? ["apt-get", "-y", ...DPKG_KEEP_CONFIG, ...operation(family, names)] : ["dnf", "-y", ...operation(family, names)]);

/** Held packages (apt-mark showhold; dnf versionlock is not read: dnf itself skips locked versions in its simulation). */
async function heldPackages(ctx: ActionContext): Promise<string[]> {
  if (ctx.family !== "debian") return [];
  return (await runTool(ctx, ["apt-mark", "showhold"])).split("\n").map((l) => l.trim()).filter(Boolean);
}

interface UpgradePlan { names: string[] | null; skipped_held: string[]; changes: PackageChange[]; warnings: string[]; simulated: string[] }

/**
 * Simulates the upgrade with the package manager (apt-get -s / dnf --assumeno). Named packages must be installed
 * (`not_found` naming the others); held ones are left out with a warning (apt would refuse to change them).
 */
async function simulate(p: Params, ctx: ActionContext): Promise<UpgradePlan> {
  const held = await heldPackages(ctx);
  let names: string[] | null = null;
  const warnings: string[] = [];
  let skipped: string[] = [];
  if (p.names !== undefined) {
    const unique = [...new Set(p.names)].sort();
    const installed = await installedVersions(ctx, unique);
    const missing = unique.filter((n) => !installed.has(n));
    if (missing.length > 0) throw new HostgateError("not_found", `Not installed: ${missing.join(", ")}; UpgradePackages only upgrades installed packages.`, { hint: "Use InstallPackage for a new package, or read_action { action: \"ListInstalledPackages\" } for exact names." });
    skipped = unique.filter((n) => held.includes(n));
    names = unique.filter((n) => !held.includes(n));
    if (skipped.length > 0) warnings.push(`Held, left as they are: ${skipped.join(", ")} (UnholdPackage first to upgrade them).`);
    if (names.length === 0) return { names, skipped_held: skipped, changes: [], warnings, simulated: [] };
  }
  const argv = simulateArgv(ctx.family, names);
  const path = await ctx.host.which(argv[0]!);
  if (!path) throw new HostgateError("unavailable", `${argv[0]} is not installed on this host.`);
  const r = await ctx.host.run([path, ...argv.slice(1)], { timeoutMs: 120_000, maxOutputBytes: 4 * 1024 * 1024, env: { LC_ALL: "C" } });
  if (ctx.family === "debian") {
    if (r.exit_code !== 0) throw new HostgateError("backend_error", `apt-get simulation failed (exit ${r.exit_code ?? r.signal}): ${r.stderr.trim().split("\n").at(-1) ?? ""}`);
    const sim = parseAptSimulation(r.stdout);
    const removed = sim.changes.filter((c) => c.action === "remove" || c.action === "purge").map((c) => c.name);
    if (removed.length > 0) warnings.push(`The upgrade also REMOVES: ${removed.join(", ")}.`);
    const keptBack = /^The following packages have been kept back:\n((?: .*\n)+)/m.exec(r.stdout)?.[1]?.trim().split(/\s+/) ?? [];
    if (keptBack.length > 0) warnings.push(`Kept back (they need new or removed packages; name them to upgrade): ${keptBack.join(", ")}.`);
    return { names, skipped_held: skipped, changes: sim.changes, warnings: [...warnings, ...sim.warnings], simulated: argv };
  }
  if (r.exit_code !== 0 && r.exit_code !== 1) throw new HostgateError("backend_error", `dnf simulation failed (exit ${r.exit_code ?? r.signal}): ${r.stderr.trim().split("\n").at(-1) ?? ""}`);
  const sim = parseDnfSimulation(`${r.stdout}\n${r.stderr}`);
  return { names, skipped_held: skipped, changes: sim.changes, warnings: [...warnings, ...sim.warnings], simulated: argv };
}

function render(p: UpgradePlan, family: string): Preview {
  const what = p.names === null ? "all upgradable packages" : p.names.join(", ") || "(none)";
  const summary = p.changes.length === 0 ? `Upgrade ${what}: nothing to do` : `Upgrade ${what}: ${p.changes.length} package change(s)`;
  const lines = [summary];
  if (p.changes.length > 0) lines.push(`will run: ${applyArgv(family, p.names).join(" ")}`, `(simulated with: ${p.simulated.join(" ")})`);
  else lines.push("(nothing will run)");
  lines.push("", renderChanges(p.changes));
  if (p.warnings.length > 0) lines.push("", "WARNINGS:", ...p.warnings.map((w) => `  !! ${w}`));
  return { summary, text: `${lines.join("\n")}\n`, current: { held_skipped: p.skipped_held }, intended: { changes: p.changes }, ...(p.warnings.length > 0 ? { warnings: p.warnings } : {}) };
}

/**
 * UpgradePackages: upgrade named installed packages, or everything upgradable, after a simulation by the package
 * manager that lists each change with versions. Apply runs the same operation with assume-yes, keeping changed
 * configuration files (dpkg --force-confold), DEBIAN_FRONTEND=noninteractive, up to 30 minutes.
 */
export default defineMutatingAction({
  name: "UpgradePackages",
  title: "Upgrade packages",
  description: "Upgrade named installed packages, or all upgradable ones, from the configured repositories. The plan lists every change with versions as the package manager simulates it; held packages are skipped.",
  params,
  output: z.object({ summary: z.string(), changed: z.number(), exit_code: z.number(), duration_ms: z.number(), stdout_tail: z.string() }),
  risk_level: "high",
  access: "mutating",
  families: ["debian", "fedora"],
  min_role: "operator",
  toolsets: ["packages"],
  host_derived: true,
  needs: ["files", "mutate"],
  preview: async (p, ctx) => render(await simulate(p, ctx), ctx.family),
  async apply(p, ctx) {
    const plan = await simulate(p, ctx);
    if (plan.changes.length === 0) return { summary: render(plan, ctx.family).summary, changed: 0, exit_code: 0, duration_ms: 0, stdout_tail: "" };
    const argv = applyArgv(ctx.family, plan.names);
    const path = await ctx.host.which(argv[0]!);
    if (!path) throw new HostgateError("unavailable", `${argv[0]} is not installed on this host.`);
    const r = await ctx.mutator.run([path, ...argv.slice(1)], { timeoutMs: PACKAGE_APPLY_TIMEOUT_MS, maxOutputBytes: 4 * 1024 * 1024, env: { DEBIAN_FRONTEND: "noninteractive", LC_ALL: "C" } });
    const details = { argv, exit_code: r.exit_code, signal: r.signal, stdout_tail: r.stdout.slice(-4000), stderr_tail: r.stderr.slice(-4000) };
    if (r.timed_out) throw new HostgateError("timeout", `${argv[0]} upgrade did not finish within ${PACKAGE_APPLY_TIMEOUT_MS / 60_000} minutes and was killed; the outcome is unknown.`, { hint: "Check the package tool's log (/var/log/apt/term.log or /var/log/dnf.log) before retrying.", details });
    if (r.exit_code !== 0) throw new HostgateError("action_failed", `upgrade failed (exit ${r.exit_code ?? r.signal}): ${r.stderr.trim().split("\n").find((l) => /^(E:|Error)/.test(l)) ?? r.stderr.trim().split("\n").at(-1) ?? ""}`, { details });
    return { summary: `upgraded ${plan.changes.length} package change(s)`, changed: plan.changes.length, exit_code: 0, duration_ms: r.duration_ms, stdout_tail: details.stdout_tail };
  },
});
