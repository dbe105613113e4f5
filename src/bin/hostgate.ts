import { Command, CommanderError } from "commander";
import { registerApproveCommands } from "../cli/approve.ts";
import { registerCompletionCommand } from "../cli/completion.ts";
import { registerConfigCommand } from "../cli/config.ts";
import { registerDaemonCommand } from "../cli/daemon.ts";
import { registerDaemonInstallCommands } from "../cli/daemon-install.ts";
import { registerDoctorCommand } from "../cli/doctor.ts";
import { registerPendingCommand } from "../cli/pending.ts";
import { registerMcpCommand } from "../cli/mcp.ts";
import { registerRiskCommand } from "../cli/risk.ts";
import { registerServeCommand } from "../cli/serve.ts";
import { registerSetupCommand } from "../cli/setup.ts";
import { VERSION } from "../version.ts";

/** The `hostgate` binary: one subcommand per file under src/cli/. Usage errors exit 2. */
const program = new Command("hostgate")
  .description("Let AI assistants inspect Linux hosts, and change them only through human-approved, audit-logged plans.")
  .version(VERSION)
  .exitOverride()
  .configureOutput({ writeErr: (s) => process.stderr.write(s) });

registerMcpCommand(program);
registerServeCommand(program);
registerDaemonCommand(program);
registerDaemonInstallCommands(program);
registerApproveCommands(program);
registerRiskCommand(program);
registerSetupCommand(program);
registerCompletionCommand(program);
registerDoctorCommand(program);
registerPendingCommand(program);
registerConfigCommand(program);
// The audit commands load SQLite and the verifiers: only when asked for (start-up time of `hostgate mcp`).
if ([undefined, "audit", "help", "--help", "-h", "completion"].includes(process.argv[2])) {
  const { registerAuditCommand } = await import("../cli/audit.ts");
  registerAuditCommand(program);
}

// `hostgate skills …` is loaded only when asked for, like the audit commands.
if ([undefined, "skills", "help", "--help", "-h", "completion"].includes(process.argv[2])) {
  const { registerSkillsCommand } = await import("../cli/skills.ts");
  registerSkillsCommand(program);
}

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) process.exit(err.exitCode === 0 ? 0 : 2);
  throw err;
}
