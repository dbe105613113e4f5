import { Command } from "commander";
import { registerApproveCommands } from "./approve.ts";
import { registerCompletionCommand } from "./completion.ts";
import { registerConfirmCommand } from "./confirm.ts";
import { registerConfigCommand } from "./config.ts";
import { registerConsoleCommand } from "./console.ts";
import { registerConsolePasskeyCommands } from "./console-passkeys.ts";
import { registerDaemonCommand } from "./daemon.ts";
import { registerDaemonInstallCommands } from "./daemon-install.ts";
import { registerDoctorCommand } from "./doctor.ts";
import { registerPendingCommand } from "./pending.ts";
import { registerMcpCommand } from "./mcp.ts";
import { registerRiskCommand } from "./risk.ts";
import { registerServeCommand } from "./serve.ts";
import { registerShowCommand } from "./show.ts";
import { registerSetupCommand } from "./setup.ts";
import { VERSION } from "../version.ts";

/** The words that load every subcommand (help, completion and man pages walk the whole tree). */
const WHOLE_TREE = [undefined, "help", "--help", "-h", "completion"];

/**
 * The `hostgate` command tree (commander), one subcommand per file under src/cli/. `first`: the first word of
 * the command line; the audit and skills commands (which load SQLite and the verifiers) are registered only
 * when it names them or asks for the whole tree, so `hostgate mcp` starts without them. `{ whole: true }`
 * registers everything (man pages, tests).
 */
export async function buildProgram(first: string | undefined, opts: { whole?: boolean } = {}): Promise<Command> {
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
  registerConfirmCommand(program);
  registerRiskCommand(program);
  registerSetupCommand(program);
  registerCompletionCommand(program);
  registerDoctorCommand(program);
  registerPendingCommand(program);
  registerShowCommand(program);
  registerConsoleCommand(program);
  registerConfigCommand(program);
  // After the console's own command (hostgate console, console enroll), under which these hang.
  registerConsolePasskeyCommands(program);
  const whole = opts.whole === true || WHOLE_TREE.includes(first);
  if (whole || first === "audit") {
    const { registerAuditCommand } = await import("./audit.ts");
    registerAuditCommand(program);
  }
  if (whole || first === "skills") {
    const { registerSkillsCommand } = await import("./skills.ts");
    registerSkillsCommand(program);
  }
  return program;
}
