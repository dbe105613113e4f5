import { z } from "zod";
import { defineMutatingAction } from "../action.ts";
import { HostgateError } from "../../errors.ts";

/**
 * RunCommand: one shell command line on an SSH host of the inventory, run only through plan → `hostgate
 * approve` → execute (the path exec_on_host takes when a policy says require_approval). The preview names the
 * host, its address, the login user and port (what the approver is letting in where), the exact command and the shell that runs it, the risk engine's signals and the
 * policy's reasons, as judged by the daemon when the preview is computed (so a policy reload or a risk-engine
 * change between plan and execute changes the preview_hash and execute refuses with plan_changed). Only SSH
 * hosts registered by the hosts feature offer it (their ActionContext has `remote`); `local` does not.
 */
const Params = z.strictObject({
  command: z.string().min(1).max(65_536).describe("The exact shell command line"),
  shell: z.enum(["sh", "bash"]).default("sh").describe("Runs as <shell> -c '<command>'"),
  timeout_sec: z.number().int().min(0).max(3600).default(60).describe("0 = no timeout"),
});
const Output = z.object({
  exit_code: z.number().int().nullable(), signal: z.string().nullable(), timed_out: z.boolean(), duration_ms: z.number(),
  stdout: z.string(), stderr: z.string(), truncated: z.boolean(), error: z.string().nullable(),
});

/** The preview's warnings: a high risk, and a policy that asks for a passkey approval. */
function warningsOf(j: { risk_level: string; decision: string; signals: readonly { reason: string }[] }): string[] {
  return [
    ...(j.risk_level === "high" ? [`the risk engine rates this command high: ${j.signals.map((s) => s.reason).join("; ")}`] : []),
    ...(j.decision === "require_biometric" ? ["the policy asks for a passkey approval: hostgate approve refuses this plan; approve it in hostgate console"] : []),
  ];
}

export const RunCommand = defineMutatingAction({
  name: "RunCommand",
  title: "Run a shell command on an SSH host (approved)",
  description: "Runs one shell command line on an inventory host over SSH after a human approval. Planned by exec_on_host when a policy requires approval; the preview names the host, the exact command, its risk signals and the policy reasons.",
  params: Params,
  output: Output,
  access: "mutating",
  risk_level: "high",
  families: "all",
  min_role: "operator",
  needs: ["exec"],
  toolsets: ["host"],
  host_derived: true,
  preview: async (p, ctx) => {
    const remote = ctx.remote;
    if (!remote) throw new HostgateError("invalid_params", "RunCommand runs on SSH hosts from the inventory, not on local", { hint: "Use exec_on_host with a host from search_hosts (when an admin has set exec.enabled: true)." });
    const j = await remote.judge(p.command, p.shell);
    // require_biometric plans like require_approval; the decision below is part of the preview (and its hash), so
    // only a passkey approval can mint the receipt (core/approval-proof.ts passkeyRequirement).
    if (j.decision === "deny") {
      throw new HostgateError("refused", `RunCommand on ${remote.name}: ${j.reasons[0] ?? "refused"}`, { details: { decision: j.decision, risk_level: j.risk_level, reasons: j.reasons } });
    }
    const lines = [
      `host:     ${remote.name} (${remote.address}, via ${remote.provider})${remote.machine ? ` — the machine ${remote.machine} of the inventory` : ""}`,
      remote.port === null ? "login:    none (runs as the daemon's own user on this host)" : `login:    ${remote.user ?? "?"}@${remote.address} port ${remote.port}`,
      `runs:     ${p.shell} -c ${JSON.stringify(p.command)}`,
      `timeout:  ${p.timeout_sec === 0 ? "none" : `${p.timeout_sec} s`}`,
      `risk:     ${j.risk_level}${j.signals.length > 0 ? ` — ${j.signals.map((s) => `${s.id}: ${s.reason}`).join("; ")}` : ""}`,
      `decision: ${j.decision}`,
      ...j.reasons.map((r) => `  - ${r}`),
    ];
    return {
      summary: `Run on ${remote.name}: ${p.command.length > 80 ? `${p.command.slice(0, 77)}…` : p.command}`,
      text: lines.join("\n"),
      intended: { host: remote.name, address: remote.address, port: remote.port, user: remote.user, command: p.command, shell: p.shell, timeout_sec: p.timeout_sec, risk_level: j.risk_level, signals: j.signals.map((s) => s.id), decision: j.decision, reasons: j.reasons },
      ...(warningsOf(j).length > 0 ? { warnings: warningsOf(j) } : {}),
    };
  },
  apply: async (p, ctx) => {
    const remote = ctx.remote;
    if (!remote) throw new HostgateError("invalid_params", "RunCommand runs on SSH hosts only");
    const r = await remote.run(p.command, p.shell, p.timeout_sec);
    if (r.exit_code !== 0 || r.error) {
      throw new HostgateError("action_failed", `${remote.name}: ${r.error ?? (r.signal ? `killed by ${r.signal}` : `exit code ${r.exit_code}`)}`, { details: { ...r } });
    }
    return r;
  },
});
