import { stringify } from "yaml";
import { visible } from "./approve.ts";

/**
 * What `hostgate skills …` prints for a human (without `--json`): short sentences naming what changed and
 * what to run next as a shell command, never which MCP tool to call (issue 22). The envelope's `data` is the
 * MCP tool's (ipc/skills.ts); every string from a skill or a path is passed through `visible`. A shape this
 * file does not know is printed as YAML, so nothing is lost.
 */

interface Target { rel: string; path: string; action: string; reason?: string }
interface PlanSkill { name: string; digest: string; source: string; version: string | null; targets: Target[] }
interface Plan { kind: "install" | "sync"; scope: string; resolved_base: string; skills: PlanSkill[]; lock: { path: string; change: string; reason?: string }; writes: number; blocked: number }
interface Grant { name: string; digest: string; entrypoint: string; granted_by: string; granted_at: string }

const short = (digest: string): string => digest.slice(0, 19);

function planText(plan: Plan, dryRun: boolean): string {
  const lines: string[] = [];
  const verb = plan.kind === "install" ? "install" : "restore";
  lines.push(`${dryRun ? "Would" : "Will"} ${verb} into the ${plan.scope} scope (${plan.resolved_base}):`);
  for (const s of plan.skills) {
    lines.push(`  ${s.name}${s.version ? ` ${s.version}` : ""} (${short(s.digest)}…, ${s.source})`);
    for (const t of s.targets) lines.push(`    ${t.action.padEnd(9)} ${t.rel}${t.reason ? `: ${t.reason}` : ""}`);
  }
  lines.push(`  lock file ${plan.lock.change}: ${plan.lock.path}${plan.lock.reason ? ` (${plan.lock.reason})` : ""}`);
  if (plan.blocked > 0) lines.push(`Nothing was written: ${plan.blocked} target(s) are blocked (reasons above). Fix them, then run the command again.`);
  else if (dryRun) lines.push(plan.writes === 0 ? "Nothing to write." : `${plan.writes} write(s). Run the same command without --dry-run to ${verb}.`);
  return `${lines.join("\n")}\n`;
}

/** Lines for one answer of `kind` (`skills.install.plan`, `skills.grants.list`, …); `dryRun`: the plan was asked for on its own. */
export function renderSkills(kind: string, data: Record<string, unknown>, dryRun = false): string {
  if (kind === "skills.install.plan" || kind === "skills.sync.plan") return visible(planText(data.plan as Plan, dryRun));
  if (kind === "skills.install.apply") {
    const written = (data.written as string[] | undefined) ?? [];
    const lock = data.lock as Plan["lock"] | undefined;
    return visible([
      `Installed ${String(data.name)} (${short(String(data.digest))}…) into:`,
      ...written.map((p) => `  ${p}`),
      ...(lock ? [`Lock file (${lock.change}): ${lock.path}`] : []),
      `Your AI client finds it in those folders (restart it if it lists skills only at start). Audit entry ${String(data.audit_seq)}.`,
      "",
    ].join("\n"));
  }
  if (kind === "skills.sync.apply") {
    const written = (data.written as string[] | undefined) ?? [];
    return visible(`${written.length === 0 ? "Everything pinned was already in place." : `Restored:\n${written.map((p) => `  ${p}`).join("\n")}`}\nAudit entry ${String(data.audit_seq)}.\n`);
  }
  if (kind === "skills.grants.add") {
    const g = data.granted as Grant;
    return visible(`Granted ${g.name}@${g.digest} entrypoint ${g.entrypoint}.\nskills_execute may now run exactly this tree's ${g.entrypoint} when the daemon has skills.allow_exec: true (and, with policy.dir set, a permit for it: examples/policies/30-skills.cedar).\nRevoke with: hostgate skills grants remove ${g.name}@${g.digest} ${g.entrypoint}\n`);
  }
  if (kind === "skills.grants.list") {
    const grants = data.grants as Grant[];
    if (grants.length === 0) return "No grants. Add one with: hostgate skills grants add <name@sha256:…> <entrypoint>\n";
    return visible(`${grants.map((g) => `${g.name}@${g.digest}  ${g.entrypoint}  (by ${g.granted_by}, ${g.granted_at})`).join("\n")}\n`);
  }
  if (kind === "skills.grants.remove") {
    const r = data.removed as { ref: string; entrypoint: string };
    return visible(`Removed the grant of ${r.ref} entrypoint ${r.entrypoint}.\n`);
  }
  if (kind === "skills.resolve") {
    const version = typeof data.version === "string" ? ` ${data.version}` : "";
    return visible(`${String(data.name)}${version} from ${String(data.source)}\npinned: ${String(data.pinned_ref)}\n`);
  }
  return visible(stringify(data));
}
