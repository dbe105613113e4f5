import type { Command } from "commander";
import type { PasskeysListResult } from "../ipc/passkeys.ts";
import { adminSocketPath, daemonHintAfter } from "./admin-socket.ts";
import { visible } from "./approve.ts";
import { EXIT, commandLine, loadConfigOrExit } from "./common.ts";

/**
 * `hostgate console passkeys` and `hostgate console revoke <credential-id>` (issue 23): list and revoke the
 * enrolled passkeys over the admin socket. They hang under the `console` command, which the console's own file
 * owns (`hostgate console`, `hostgate console enroll`); when it is not registered yet, a bare `console` command is
 * made to hold them.
 */
export function registerConsolePasskeyCommands(program: Command): void {
  const console = program.commands.find((c) => c.name() === "console")
    ?? program.command("console").description("The approval console: passkeys that may approve plans (admin socket).");
  console
    .command("passkeys")
    .description("List the enrolled passkeys: credential id, name, enrolled when and by whom (audit chain), last used (admin socket).")
    .option("--socket <path>", "admin socket (default: the daemon the MCP fronts use, by the same rule)")
    .option("-c, --config <path>", "configuration file the fronts use (daemon.* sockets, state.dir)")
    .option("--json", "print them as JSON")
    .action(async (_opts: unknown, cmd: Command) => {
      // The parent `console` has --socket and -c too; commander gives them to it wherever they stand: merge.
      const opts = cmd.optsWithGlobals<{ socket?: string; config?: string; json?: boolean }>();
      const r = await call(opts, (admin) => admin.call("passkeys_list", {}));
      process.stdout.write(opts.json ? `${JSON.stringify(r, null, 2)}\n` : renderPasskeys(r));
    });
  console
    .command("revoke")
    .description("Revoke a passkey: it can no longer approve plans or vouch for a new passkey (admin socket).")
    .argument("<credential-id>", "the credential id `hostgate console passkeys` lists")
    .option("--socket <path>", "admin socket (default: the daemon the MCP fronts use, by the same rule)")
    .option("-c, --config <path>", "configuration file the fronts use (daemon.* sockets, state.dir)")
    .action(async (id: string, _opts: unknown, cmd: Command) => {
      const opts = cmd.optsWithGlobals<{ socket?: string; config?: string }>();
      await call(opts, (admin) => admin.call("passkeys_revoke", { credential_id: id }));
      process.stdout.write(`Revoked passkey ${id}; it can no longer approve.\n`);
    });
}

/** The BY cell: who enrolled a passkey (audit chain), or a warning when the chain has no enrollment entry for it. */
export const enrolledByCell = (p: PasskeysListResult["passkeys"][number]): string => (p.enrolled_by == null ? "NOT IN THE AUDIT CHAIN" : `${p.enrolled_by}${p.vouched_by ? ", vouched by another passkey" : ""}`);

/**
 * The table `hostgate console passkeys` prints: credential, name (escaped: a passkey's owner typed it in a
 * browser), enrolled when and by whom (from the audit chain, issue 23: spot a passkey you did not make), last use.
 */
export function renderPasskeys(r: PasskeysListResult): string {
  if (r.passkeys.length === 0) return "No passkey is enrolled. Enroll one with: hostgate console enroll\n";
  const rows = r.passkeys.map((p) => [p.credential_id, visible(p.name), p.created_at, enrolledByCell(p), p.last_used_at ?? "never"]);
  const head = ["CREDENTIAL", "NAME", "ENROLLED", "BY", "LAST USED"];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join("  ").trimEnd();
  return `${[line(head), ...rows.map(line)].join("\n")}\nOne you did not enroll? Revoke it with: hostgate console revoke <credential>\n`;
}

type Admin = ReturnType<typeof import("../ipc/socket-client.ts").socketAdminClient>;

/** Runs one admin call; on an error prints it (message, hint, which daemon was asked) and exits 1. */
async function call<T>(opts: { socket?: string; config?: string }, fn: (admin: Admin) => Promise<{ ok: true; value: T } | { ok: false; error: { code: string; message: string; hint?: string | undefined } }>): Promise<T> {
  const { socketAdminClient } = await import("../ipc/socket-client.ts");
  const target = await adminSocketPath(opts.socket, loadConfigOrExit(opts.config));
  const admin = socketAdminClient(target.path, commandLine());
  const r = await fn(admin).finally(() => admin.close());
  if (!r.ok) {
    process.stderr.write(`hostgate: ${r.error.message}${r.error.hint ? `\n${r.error.hint}` : ""}\n${daemonHintAfter(r.error, target)}`);
    process.exit(EXIT.failure);
  }
  return r.value;
}
