import { parseActor, type Caller } from "./caller.ts";
import { HostgateError } from "./errors.ts";

/**
 * Who may approve (issue 12: approvals a model cannot give itself). The daemon decides from kernel facts,
 * never from what a client claims:
 * - separation: whether the approving process runs as another uid than the front that planned the step
 *   (`separated`) or not (`none`: the same uid, both root, or a side whose uid the kernel did not report).
 *   A model with a shell runs as its front's uid, so only a separated approval is one it cannot give itself.
 * - `approval.same_user`: whether an approval with separation `none` is allowed at all (`deny` for
 *   `hostgate daemon`, `allow` for the embedded daemon, where the user and the model share a uid by design);
 *   when allowed it is labelled `separation: none` in the receipt, the execute result, history and the audit
 *   entry, so nobody mistakes it for a separated human approval.
 * - a controlling terminal: the approving process must have one (tty_nr in /proc/<pid>/stat, read by the
 *   daemon). This stops an assistant's shell tool writing one JSON line to the admin socket; it cannot stop a
 *   same-uid process that opens a pseudo-terminal of its own (`script`, a pty library). Only uid separation
 *   does that: another uid cannot open the admin socket at all (mode 0600, root's).
 */

/** `separated`: approver and planner are different uids, not both root. `none`: anything else. */
export type Separation = "separated" | "none";

/** The configured policy for approvals with separation `none`. */
export type SameUserPolicy = "allow" | "deny";

/** Separation of an approval, with the facts it rests on, for labels and refusals. */
export interface SeparationFacts {
  separation: Separation;
  planner_uid: number | null;
  approver_uid: number | null;
  /** One line: why `none`, or the two uids. */
  why: string;
}

/** Computes separation from the planner's audit actor (written by `actorOf`) and the approving caller. */
export function separationOf(plannerActor: string, approver: Caller): SeparationFacts {
  const planner = parseActor(plannerActor)?.uid ?? null;
  const uid = approver.peer?.uid ?? null;
  const base = { planner_uid: planner, approver_uid: uid };
  if (uid === null) return { ...base, separation: "none", why: `the kernel reported no uid for the approver (${approver.socket} connection)` };
  // A tcp:// (or vsock) front authenticates with the daemon token, not a uid: the credential that planned is not
  // one the approving local user's terminal holds, and the admin socket is not reachable over tcp:// at all. So a
  // step planned over tcp:// and approved on the admin socket by a kernel uid is separated by credential.
  if (planner === null && parseActor(plannerActor)?.socket === "tcp") return { ...base, separation: "separated", why: `planned over tcp:// by a daemon-token holder (no local uid), approved by uid ${uid} at a terminal on the admin socket` };
  if (planner === null) return { ...base, separation: "none", why: "the kernel reported no uid for the front that planned it (an in-process front)" };
  if (planner === 0 && uid === 0) return { ...base, separation: "none", why: "planner and approver are both root" };
  if (planner === uid) return { ...base, separation: "none", why: `planner and approver are the same uid ${uid}` };
  return { ...base, separation: "separated", why: `planned by uid ${planner}, approved by uid ${uid}` };
}

/**
 * The controlling terminal of a process from the text of `/proc/<pid>/stat`: field 7, `tty_nr` (0 = none).
 * The command name (field 2) is in parentheses and may hold spaces and `)`, so fields are counted after the
 * LAST `)`. Returns null when the text is not a stat line.
 */
export function ttyNrOfStat(stat: string): number | null {
  const close = stat.lastIndexOf(")");
  if (close < 0) return null;
  const fields = stat.slice(close + 1).trim().split(/\s+/);
  // After the name: state (3), ppid (4), pgrp (5), session (6), tty_nr (7).
  const tty = Number(fields[4]);
  return Number.isSafeInteger(tty) ? tty : null;
}

/**
 * The supplementary group ids of a process from the text of `/proc/<pid>/status` (the `Groups:` line, which may
 * be empty). Returns null when the text has no such line.
 */
export function groupsOfStatus(status: string): number[] | null {
  const line = /^Groups:[ \t]*(.*)$/m.exec(status);
  if (line === null) return null;
  return line[1]!.trim().split(/\s+/).filter((g) => g !== "").map(Number).filter((g) => Number.isSafeInteger(g));
}

/** Where to point someone whose approval was refused: the routes that do work. */
export const SEPARATED_ROUTE =
  "Approve as a different user than the assistant: run `hostgate daemon` as a service (`hostgate daemon install`), give the assistant's user the agent socket only (daemon.agent_group), and run `hostgate approve` as root (or a member of daemon.admin_group) in a terminal.";

/**
 * Checks an approval by a caller that is not the daemon's own process. Throws `approval_refused` when the
 * approving process has no controlling terminal (`ttyNr` 0 or unknown), or when separation is `none` and the
 * policy is `deny`. The message names the route that works.
 */
export function checkApprover(facts: SeparationFacts, ttyNr: number | null, policy: SameUserPolicy): void {
  if (ttyNr === null || ttyNr === 0) {
    throw new HostgateError("approval_refused", "The approving process has no controlling terminal; an approval is a human at a terminal, not a program writing to the admin socket.", {
      hint: `Run \`hostgate approve <plan_id>\` in an interactive terminal. ${SEPARATED_ROUTE}`,
    });
  }
  if (facts.separation === "none" && policy === "deny") {
    throw new HostgateError("approval_refused", `Same-user approval refused: ${facts.why}, so the assistant could have approved its own plan (approval.same_user: deny).`, {
      hint: SEPARATED_ROUTE,
    });
  }
}
