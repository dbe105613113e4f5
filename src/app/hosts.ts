import type { ActionContext } from "../core/catalogue/action.ts";
import { HostgateError } from "../core/errors.ts";
import { HOST_ID_PATTERN, LOCAL_HOST } from "../core/host-id.ts";

/** One host the daemon can act on: its id, its own name, and the ports its actions run through. */
export interface HostEntry {
  id: string;
  /** The host's own name (uname nodename), shown in provenance. */
  hostname: string;
  ctx: ActionContext;
  /** True when its systemd backend is the in-memory mock (results say `simulated`). */
  simulated_systemd: boolean;
}

/**
 * The daemon's hosts: host id → action context. Only `local` is registered at start; the hosts issue
 * registers SSH targets (from the inventory) with {@link register}. Lookups of an id that was never
 * registered fail with `unknown_host`, never fall back to local.
 */
export class HostRegistry {
  private readonly hosts = new Map<string, HostEntry>();

  /** Adds a host. Throws `invalid_params` for a malformed id and `host_exists` when the id is taken (unregister first). */
  register(entry: HostEntry): void {
    if (!HOST_ID_PATTERN.test(entry.id)) throw new HostgateError("invalid_params", `${JSON.stringify(entry.id)} is not a host id.`, { hint: "Use letters, digits, . _ - @ : (at most 253 characters)." });
    if (this.hosts.has(entry.id)) throw new HostgateError("host_exists", `Host ${entry.id} is already registered.`);
    this.hosts.set(entry.id, entry);
  }

  /** Removes a host (not `local`); returns whether it was there. */
  unregister(id: string): boolean {
    if (id === LOCAL_HOST) throw new HostgateError("invalid_params", "The local host cannot be unregistered.");
    return this.hosts.delete(id);
  }

  /** The entry for `id` (default `local`). Throws HostgateError `unknown_host` with the known ids. */
  get(id: string = LOCAL_HOST): HostEntry {
    const entry = this.hosts.get(id);
    if (!entry) {
      throw new HostgateError("unknown_host", `No host named ${JSON.stringify(id)} is known to this daemon.`, {
        hint: `Known hosts: ${[...this.hosts.keys()].sort().join(", ")}. A host here is \`local\` or an SSH host that exec_on_host registered for an approval plan; ` +
          "for a command on an inventory host (a search_hosts name, an ssh_config alias, an address) call exec_on_host { host, command }: it plans a RunCommand step on that host itself when a policy requires approval.",
        details: { host: id, known: [...this.hosts.keys()].sort() },
      });
    }
    return entry;
  }

  has(id: string): boolean {
    return this.hosts.has(id);
  }

  /** Registered ids, sorted. */
  ids(): string[] {
    return [...this.hosts.keys()].sort();
  }
}

/** A host entry for `ctx` (default: the local host), for tests, benches and the composition root. */
export function hostEntry(ctx: ActionContext, hostname: string, id: string = LOCAL_HOST, simulatedSystemd = false): HostEntry {
  return { id, hostname, ctx, simulated_systemd: simulatedSystemd };
}
