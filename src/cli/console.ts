import type { Command } from "commander";
import { adminSocketPath } from "./admin-socket.ts";
import { canOpenBrowser, openLinkInBrowser } from "./browser-open.ts";
import { EXIT, commandLine, loadConfigOrExit } from "./common.ts";
import { enrolledByCell } from "./console-passkeys.ts";
import { visible } from "./approve.ts";
import type { PasskeysListResult } from "../ipc/passkeys.ts";

/**
 * What `hostgate console enroll` says when passkeys exist already: how many, each one's name and who enrolled it
 * when (audit chain), that adding one needs an assertion from one of them, and how to revoke one.
 */
export function existingPasskeys(r: PasskeysListResult): string {
  const n = r.passkeys.length;
  const lines = r.passkeys.map((p) => `  ${visible(p.name)}  (${p.credential_id}; enrolled ${p.created_at} by ${enrolledByCell(p)})`);
  return `${n} passkey${n === 1 ? " is" : "s are"} already enrolled:\n${lines.join("\n")}\n`
    + `Adding another needs an assertion from ${n === 1 ? "that passkey" : "one of them"}: the page asks for it before it creates the new passkey.\n`
    + "One you did not enroll? Revoke it first: hostgate console revoke <credential>\n\n";
}

/** Asks the admin socket for a one-time link and prints it (and opens a browser for a login link when one exists). */
async function printLink(purpose: "login" | "enroll", opts: { socket?: string; config?: string; open: boolean }): Promise<void> {
  const { socketAdminClient } = await import("../ipc/socket-client.ts");
  const target = await adminSocketPath(opts.socket, loadConfigOrExit(opts.config));
  const admin = socketAdminClient(target.path, commandLine());
  // Enrolling next to existing passkeys: say which exist (a passkey the human did not make is one to revoke).
  const existing = purpose === "enroll" ? await admin.call("passkeys_list", {}) : null;
  const r = await admin.call("console_link", { purpose });
  await admin.close();
  if (r.ok && existing?.ok === true && existing.value.passkeys.length > 0) process.stdout.write(existingPasskeys(existing.value));
  if (!r.ok) {
    process.stderr.write(`hostgate: ${r.error.message}${r.error.hint ? `\n${r.error.hint}` : ""}\n`);
    process.exit(EXIT.failure);
  }
  const what = purpose === "login" ? "Log in to the approval console" : "Enroll a passkey for approvals";
  process.stdout.write(`${what} with this one-time link (valid until ${r.value.expires_at}, works once, only on this machine):\n\n  ${r.value.url}\n\n`);
  if (opts.open && canOpenBrowser(process.env)) {
    if (await openLinkInBrowser(r.value.url)) process.stdout.write("Asked xdg-open to open it in your browser, through a private redirect page (the link is on no command line).\n");
    else process.stdout.write("Could not start xdg-open: open the link yourself.\n");
  }
}

/**
 * The options of `console` or `console enroll` wherever they stand on the command line: commander gives an option
 * both commands declare to the parent `console` (`hostgate console enroll --socket X` sets the parent's), so each
 * action reads them merged with its ancestors' (optsWithGlobals). `--no-open` anywhere turns opening off.
 */
function linkOpts(c: Command): { socket?: string; config?: string; open: boolean } {
  const own = c.opts<{ socket?: string; config?: string; open?: boolean }>();
  const all = c.optsWithGlobals<{ socket?: string; config?: string; open?: boolean }>();
  return { ...(all.socket === undefined ? {} : { socket: all.socket }), ...(all.config === undefined ? {} : { config: all.config }), open: own.open !== false && all.open !== false };
}

/**
 * `hostgate console`: starts the daemon's approval console if it is not running (admin socket) and prints a
 * one-time login link, opening a browser when a graphical session exists. `hostgate console enroll`: prints a
 * one-time passkey-enrollment link (enrolling without one is refused).
 */
export function registerConsoleCommand(program: Command): void {
  const cmd = program
    .command("console")
    .description("Open the daemon's approval console: print a one-time login link (admin socket) and open a browser when there is one.")
    .option("--socket <path>", "admin socket (default: the daemon the MCP fronts use, by the same rule)")
    .option("-c, --config <path>", "configuration file the fronts use (daemon.* sockets, state.dir)")
    .option("--no-open", "print the link only, never start a browser")
    .action(async (_opts: unknown, c: Command) => { await printLink("login", linkOpts(c)); });
  cmd
    .command("enroll")
    .description("Print a one-time link that enrolls a passkey for approving plans in the console (admin socket).")
    .option("--socket <path>", "admin socket (default: the daemon the MCP fronts use, by the same rule)")
    .option("-c, --config <path>", "configuration file the fronts use (daemon.* sockets, state.dir)")
    .option("--no-open", "print the link only, never start a browser")
    .action(async (_opts: unknown, c: Command) => { await printLink("enroll", linkOpts(c)); });
}
