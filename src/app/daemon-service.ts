import { inProcessCaller, type Caller } from "../core/caller.ts";
import type { AdminClient, DaemonClient } from "../ipc/client.ts";
import { createDispatcher, inProcessClient, type Dispatcher } from "../ipc/dispatch.ts";
import type { AdminMethod, AgentMethod } from "../ipc/methods.ts";
import type { DaemonDeps } from "./deps.ts";
import { exposureGate } from "./exposure.ts";
import { daemonHandlers, type ServiceExtras } from "./handlers.ts";

export type { ServiceExtras } from "./handlers.ts";

/**
 * The daemon's use cases behind the method table: one dispatcher (ipc/dispatch.ts over app/handlers.ts)
 * that the sockets (ipc/server.ts) and the in-process clients share, so the embedded mode and a remote
 * daemon answer alike. Every call carries a {@link Caller}; its actor string is what the audit chain records.
 */
export class DaemonService {
  readonly dispatcher: Dispatcher;

  constructor(readonly deps: DaemonDeps, extras: ServiceExtras = {}) {
    this.dispatcher = createDispatcher(daemonHandlers(deps, extras), exposureGate(deps), deps.tracer);
  }

  /** An in-process agent-side client for `caller` (default: an operator labelled `label`). */
  agent(label = "mcp", caller: Caller = inProcessCaller("operator", label)): DaemonClient {
    return inProcessClient<AgentMethod>(this.dispatcher, caller);
  }

  /** An in-process admin-side client (tests, embedded approvals): an admin labelled `label`. */
  admin(label = "admin", caller: Caller = inProcessCaller("admin", label)): AdminClient {
    return inProcessClient<AdminMethod>(this.dispatcher, caller);
  }
}
