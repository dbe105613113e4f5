import type { DaemonMode } from "./approval-proof.ts";

/**
 * How the human who approves reaches this daemon's admin socket, for the text that tells them what to type (the
 * plan's `next`, execute's hints; issue 25 leftovers: the system daemon's plans said `hostgate approve <id>`, which
 * its root-only admin socket then refused without sudo). Pure: the daemon stats its socket (daemon/socket-facts.ts).
 */

/** The admin socket as the kernel reports it once created: owner uid, group gid, permission bits, the group's name. */
export interface AdminSocketAccess {
  uid: number;
  gid: number;
  /** Permission bits (e.g. 0o600, 0o660). */
  perm: number;
  /** The name of daemon.admin_group when the socket was given that group, else null. */
  group: string | null;
}

/** The command that approves, and the group whose members may type it without sudo (null: none). */
export interface Approver {
  command: "hostgate approve" | "sudo hostgate approve";
  group: string | null;
}

/** A daemon whose admin socket is the approving user's own (the embedded daemon): no sudo. */
export const OWN_SOCKET_APPROVER: Approver = { command: "hostgate approve", group: null };

/**
 * Who approves on a daemon of `mode` whose admin socket is `socket` (null: not known). The embedded daemon's socket
 * belongs to the user whose front started it, the user at the terminal: plain. The system daemon's (`hostgate daemon`,
 * the service): open to everyone (mode o+rw): plain; open to daemon.admin_group: plain for its members (`group`);
 * else, or not known, only its owner (root for the service) gets in: `sudo hostgate approve`.
 */
export function approverOf(mode: DaemonMode, socket: AdminSocketAccess | null): Approver {
  if (mode === "embedded") return OWN_SOCKET_APPROVER;
  if (socket === null) return { command: "sudo hostgate approve", group: null };
  if ((socket.perm & 0o006) === 0o006) return OWN_SOCKET_APPROVER;
  if (socket.group !== null && (socket.perm & 0o060) === 0o060) return { command: "hostgate approve", group: socket.group };
  return { command: "sudo hostgate approve", group: null };
}

/** What to run, in backquotes, for plan `planId`: `` `sudo hostgate approve <id>` ``, or the group's form with sudo as the alternative. */
export function approveCommandText(a: Approver, planId: string): string {
  if (a.group === null) return `\`${a.command} ${planId}\``;
  return `\`${a.command} ${planId}\` as a member of group ${a.group} (else \`sudo hostgate approve ${planId}\`)`;
}
