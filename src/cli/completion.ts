import type { Command } from "commander";
import { EXIT } from "./common.ts";

/** `hostgate completion bash|zsh`: prints the completion script for that shell. */
export function registerCompletionCommand(program: Command): void {
  program
    .command("completion")
    .description("Print a shell completion script: eval \"$(hostgate completion bash)\" (or zsh)")
    .argument("<shell>", "bash or zsh")
    .action(async (shell: string) => {
      const { bashCompletion, zshCompletion } = await import("./completion-scripts.ts");
      if (shell === "bash") process.stdout.write(bashCompletion(program));
      else if (shell === "zsh") process.stdout.write(zshCompletion(program));
      else {
        process.stderr.write(`hostgate: completion for ${JSON.stringify(shell)} is not available: use bash or zsh.\n`);
        process.exit(EXIT.usage);
      }
    });
}
