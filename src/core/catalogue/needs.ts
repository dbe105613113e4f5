import { HostgateError } from "../errors.ts";
import type { Action, ActionContext } from "./action.ts";

/**
 * What an action needs of a host (issue 20), one word per port of ActionContext:
 * - `files`: the HostProbe (read files, statfs, fixed argv such as package tools, process listings);
 * - `exec`: an arbitrary command line approved by a human (RunCommand through `remote`);
 * - `systemd`: the UnitManager of the host's service manager;
 * - `mutate`: the HostMutator (write files, run privileged argv).
 */
export type Capability = "files" | "exec" | "systemd" | "mutate";
export const CAPABILITIES: readonly Capability[] = ["files", "exec", "systemd", "mutate"];

/** The action's declared needs, else the rule: read-only → files; mutating → files + mutate. */
export function needsOf(action: Pick<Action, "needs" | "access">): readonly Capability[] {
  return action.needs ?? (action.access === "mutating" ? ["files", "mutate"] : ["files"]);
}

/**
 * Whether an action's changes need root on the host: a mutating action that writes through the mutator or asks
 * the system manager for a job (`mutate` or `systemd`). RunCommand (`exec` alone) runs as the login user.
 */
export function needsRoot(action: Pick<Action, "needs" | "access">): boolean {
  return action.access === "mutating" && needsOf(action).some((n) => n === "mutate" || n === "systemd");
}

/**
 * What a context offers: its declared `capabilities`, else every port it has (`exec` only with `remote`).
 * Contexts built for a remote host always declare theirs (app/hosts.ts).
 */
export function capabilitiesOf(ctx: Pick<ActionContext, "capabilities" | "remote">): readonly Capability[] {
  return ctx.capabilities ?? (ctx.remote ? CAPABILITIES : ["files", "systemd", "mutate"]);
}

/**
 * Refuses an action on a host that lacks what it needs, before any port is touched: HostgateError
 * `unavailable` naming the host, the missing capabilities and what the host does offer (and why, when the
 * context says: `capabilities_note`).
 */
export function assertSupported(action: Pick<Action, "name" | "needs" | "access">, ctx: Pick<ActionContext, "capabilities" | "remote" | "capabilities_note">, hostId: string): void {
  const offered = capabilitiesOf(ctx);
  const missing = needsOf(action).filter((n) => !offered.includes(n));
  if (missing.length === 0) return;
  const note = ctx.capabilities_note ? ` ${ctx.capabilities_note}` : "";
  throw new HostgateError("unavailable", `${action.name} needs ${missing.join(" + ")}, which host ${hostId} does not offer (it offers ${offered.join(", ") || "nothing"}).${note}`, {
    hint: offered.includes("exec") ? "On this host only approved commands run: exec_on_host { host, command } (when an admin has set exec.enabled: true)." : "Choose another host, or an action this host supports (describe lists them per kind of host).",
    details: { host: hostId, action: action.name, missing, offered },
  });
}
