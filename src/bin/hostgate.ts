import { CommanderError } from "commander";
import { buildProgram } from "../cli/program.ts";

/** The `hostgate` binary: the command tree of cli/program.ts. Usage errors exit 2. */
const program = await buildProgram(process.argv[2]);

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) process.exit(err.exitCode === 0 ? 0 : 2);
  throw err;
}
