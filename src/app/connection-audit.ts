import type { JsonValue } from "../core/audit/canonical.ts";
import type { ActionContext } from "../core/catalogue/action.ts";
import type { ConnectionFacts } from "../ports/host-connection.ts";

/**
 * The `via` field of an audit entry (issue 20): how the host was reached, from the adapter that dialled it:
 * `ssh_user`, `host_key` (SHA256:… as `ssh-keygen -lf` prints it), `host_key_type`, and `sudo` (whether the
 * step's commands went through `sudo -n`). `asRoot`: whether the step runs privileged commands at all
 * (core/catalogue/needs.ts needsRoot). Undefined for a host without a connection (`local`).
 */
export function viaOf(facts: ConnectionFacts | undefined, asRoot: boolean): Record<string, JsonValue> | undefined {
  if (!facts) return undefined;
  return { ssh_user: facts.ssh_user, host_key: facts.host_key, host_key_type: facts.host_key_type, sudo: facts.sudo && asRoot };
}

/** The connection facts of a context's host now (rejects with the pool's errors); undefined for `local`. */
export async function connectionOf(ctx: Pick<ActionContext, "connection">): Promise<ConnectionFacts | undefined> {
  return ctx.connection ? ctx.connection.facts() : undefined;
}
