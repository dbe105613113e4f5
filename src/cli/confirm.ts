import type { Command } from "commander";
import { adminSocketPath } from "./admin-socket.ts";
import { EXIT, commandLine, loadConfigOrExit } from "./common.ts";

/**
 * `hostgate confirm <transaction_id>` (issue 24, "commit confirmed"): keeps an applied change whose preview said
 * AUTO-REVERT. Without it the daemon restores the prior state when the confirm window ends. Admin socket only;
 * no terminal needed (a human who still has access after the change is the point, and a script on that human's
 * side may confirm). Exit 0 confirmed; 1 refused (too late, not waiting, unknown id) with the daemon's message.
 */
export function registerConfirmCommand(program: Command): void {
  program
    .command("confirm")
    .description("Keep a change that reverts by itself unless confirmed within its window, e.g. a firewall rule (admin socket).")
    .argument("<transaction_id>", "the transaction id the execute result names (its confirm.command), or its first 8 or more characters")
    .option("--socket <path>", "admin socket (default: the daemon the MCP fronts use, by the same rule)")
    .option("-c, --config <path>", "configuration file the fronts use (daemon.* sockets, state.dir)")
    .action(async (id: string, opts: { socket?: string; config?: string }) => {
      const { socketAdminClient } = await import("../ipc/socket-client.ts");
      const target = await adminSocketPath(opts.socket, loadConfigOrExit(opts.config));
      const admin = socketAdminClient(target.path, commandLine());
      const r = await admin.call("confirm", { transaction_id: id });
      await admin.close();
      if (!r.ok) {
        process.stderr.write(`hostgate: ${r.error.message}${r.error.hint ? `\n${r.error.hint}` : ""}\n${r.error.code === "unknown_transaction" ? `${target.hint}\n` : ""}`);
        process.exit(EXIT.failure);
      }
      process.stdout.write(`Confirmed ${r.value.transaction_id} (${r.value.action_name} on ${r.value.host}) at ${r.value.confirmed_at}: the change is kept.\n`);
    });
}
