import { fixedTool } from "./fixed.ts";

/** `plan_command`: judge a shell command line with the command-risk engine; no connection, no change. */
export const planCommandTool = fixedTool({
  name: "plan_command",
  method: "plan_command",
  title: "Judge a shell command",
  description: "Analyse a shell command line before anything runs: parses the real shell grammar (pipelines, substitutions, sh -c strings, wrappers such as sudo/env/xargs/find -exec) and answers decision (allow | deny | require_approval), risk_level, signals (id, severity, reason, byte span) and every command found with its normalised argv. Nothing is executed and nothing connects. Until a policy engine is configured the decision is the risk engine's alone (policy.source = risk_engine_only).",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  toolsets: ["risk"],
});
