/**
 * The deterministic planner's rules, as data: a pattern over the lower-cased intent and the catalogue step
 * it proposes. Rules are tried in order; each matching rule adds one step. A step is only proposed when its
 * action exists in the host's catalogue, and its params are validated like any other step before a
 * transaction is created. The planner never produces free text to run.
 */
export interface PlannerRule {
  id: string;
  pattern: RegExp;
  action: string;
  params(match: RegExpExecArray): Record<string, unknown>;
  /** Examples that must produce this rule's action (checked by rules.test.ts). */
  examples: readonly string[];
}

const UNIT = "([a-z0-9][a-z0-9@._:\\\\-]*)";
const PKG = "([a-z0-9][a-z0-9+._-]*)";
const unit = (name: string): string => (/\.[a-z]+$/.test(name) ? name : `${name}.service`);

export const PLANNER_RULES: readonly PlannerRule[] = [
  ...(["restart", "start", "stop", "reload", "enable", "disable"] as const).map((verb): PlannerRule => ({
    id: `${verb}_service`,
    pattern: new RegExp(`\\b${verb}\\s+(?:the\\s+)?(?:service\\s+|unit\\s+)?${UNIT}`),
    action: `${verb[0]!.toUpperCase()}${verb.slice(1)}Service`,
    params: (m) => ({ unit: unit(m[1]!) }),
    examples: [`${verb} nginx`, `please ${verb} the service ssh.service`],
  })),
  { id: "install_package", pattern: new RegExp(`\\binstall\\s+(?:the\\s+)?(?:package\\s+)?${PKG}`), action: "InstallPackage", params: (m) => ({ name: m[1] }), examples: ["install htop", "install the package jq"] },
  { id: "remove_package", pattern: new RegExp(`\\b(?:remove|uninstall)\\s+(?:the\\s+)?(?:package\\s+)?${PKG}`), action: "RemovePackage", params: (m) => ({ name: m[1] }), examples: ["remove telnet", "uninstall package nano"] },
  { id: "update_index", pattern: /\b(?:update|refresh)\s+(?:the\s+)?(?:package\s+)?(?:index|indexes|lists|apt|cache)\b|\bapt(?:-get)? update\b/, action: "UpdatePackageIndex", params: () => ({}), examples: ["update the package index", "apt update"] },
  { id: "kill_process", pattern: /\bkill\s+(?:process\s+|pid\s+)?(\d+)/, action: "SignalProcess", params: (m) => ({ pid: Number(m[1]), signal: "KILL" }), examples: ["kill 4242", "kill pid 17"] },
  { id: "terminate_process", pattern: /\b(?:terminate|stop)\s+(?:process|pid)\s+(\d+)/, action: "SignalProcess", params: (m) => ({ pid: Number(m[1]), signal: "TERM" }), examples: ["terminate process 4242", "stop pid 99"] },
  { id: "disk", pattern: /\bdisk|\bfile ?systems?\b|\bstorage\b|\bdf\b/, action: "GetDiskUsage", params: () => ({}), examples: ["check disk usage", "how full are the filesystems"] },
  { id: "memory", pattern: /\bmemory\b|\bram\b|\bswap\b/, action: "GetMemoryUsage", params: () => ({}), examples: ["show memory", "is swap used"] },
  { id: "load", pattern: /\bload\b|\bcpu\b|\bpressure\b/, action: "GetLoad", params: () => ({}), examples: ["what is the load", "cpu pressure"] },
  { id: "ports", pattern: /\bports?\b|\blistening\b/, action: "ListListeningPorts", params: () => ({}), examples: ["which ports are open", "what is listening"] },
  { id: "processes", pattern: /\bprocess(?:es)?\b(?!\s+\d)/, action: "ListProcesses", params: () => ({}), examples: ["list processes", "top processes by cpu"] },
  { id: "system", pattern: /\bsystem info|\bkernel\b|\bos version\b|\buptime\b/, action: "GetSystemInfo", params: () => ({}), examples: ["show system info", "which kernel is running"] },
];

/** Proposes steps for an intent: every matching rule in order, each action at most once. */
export function planIntent(intent: string, rules: readonly PlannerRule[] = PLANNER_RULES): { action: string; params: Record<string, unknown>; rule: string }[] {
  const text = intent.toLowerCase();
  const steps: { action: string; params: Record<string, unknown>; rule: string }[] = [];
  for (const rule of rules) {
    const m = rule.pattern.exec(text);
    if (!m || steps.some((s) => s.action === rule.action)) continue;
    steps.push({ action: rule.action, params: rule.params(m), rule: rule.id });
  }
  return steps;
}
