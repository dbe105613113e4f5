import { systemdActions } from "../core/catalogue/actions/systemd.ts";
import { actionsFor } from "../core/catalogue/index.ts";
import { HostgateError, toHostgateError } from "../core/errors.ts";
import type { AdminClient, DaemonClient, ResourceContents, ResourceEntry, ResourceTemplateEntry } from "../ipc/client.ts";
import {
  PROTOCOL_VERSION, type ApproveResult, type DescribeResult, type DoctorResult, type ExecuteInput, type ExecuteResult, type HistoryInput,
  type HistoryResult, type Outcome, type PlanInput, type PlanResult, type QueryResult, type ShowResult,
} from "../ipc/protocol.ts";
import { approve, reject, show } from "./approve.ts";
import { audit } from "./audit-log.ts";
import type { DaemonDeps } from "./deps.ts";
import { describeAction } from "./describe.ts";
import { doctor } from "./doctor.ts";
import { execute } from "./execute.ts";
import { history } from "./history.ts";
import { plan } from "./plan.ts";
import { queryAction } from "./query.ts";
import { listUnitResources, readUnitResource, unitResourceTemplates } from "./unit-resources.ts";

const SYSTEMD_ACTIONS = new Set(systemdActions.map((a) => a.name));

/** Runs a use case and turns any thrown error into `{ ok: false }` with its stable code. */
async function outcome<T>(fn: () => Promise<T> | T): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await fn() };
  } catch (err) {
    const e = toHostgateError(err);
    return { ok: false, error: { code: e.code, message: e.message, ...(e.hint ? { hint: e.hint } : {}) } };
  }
}

/** Optional extras wired by the composition root once their issues land (risk engine). */
export interface ServiceExtras {
  planCommand?: (input: unknown) => Promise<Record<string, unknown>>;
}

/**
 * The daemon's use cases behind the two client interfaces. `agentActor` / `adminActor` name who is calling
 * (recorded in the audit chain). The same object serves the embedded mode in-process and the sockets.
 */
export class DaemonService {
  constructor(readonly deps: DaemonDeps, private readonly extras: ServiceExtras = {}) {}

  /** The agent-side client for one caller. */
  agent(actor: string): DaemonClient {
    const d = this.deps;
    const simulated = (action: string): boolean => d.facts.backend_type === "mock" && SYSTEMD_ACTIONS.has(action);
    const described: DescribeResult = {
      protocol_version: PROTOCOL_VERSION,
      host: { hostname: d.hostname, family: d.ctx.family },
      actions: actionsFor(d.ctx.family, d.catalogue).map(describeAction),
    };
    return {
      describe: () => Promise.resolve(described),
      query: async (action: string, args: unknown): Promise<QueryResult> => {
        const r = await queryAction(action, args, d.ctx, d.hostname, d.catalogue);
        if (r.ok && simulated(action)) r.meta.simulated = true;
        if (!r.ok && (r.error.code === "not_read_only" || r.error.code === "unknown_action")) {
          await audit(d.audit(), "query.refused", actor, { action, code: r.error.code }).catch(() => undefined);
        }
        return r;
      },
      plan: (input: PlanInput): Promise<Outcome<PlanResult>> => outcome(async () => {
        const result = await plan(d, input, actor);
        if (result.steps.some((s) => simulated(s.action_name))) {
          result.next = `SIMULATED: the systemd backend is the in-memory mock (${d.facts.backend ?? "mock"}); these steps change nothing on this host. ${result.next}`;
        }
        return result;
      }),
      execute: (input: ExecuteInput): Promise<Outcome<ExecuteResult>> => outcome(() => execute(d, input, actor)),
      history: (input: HistoryInput): Promise<Outcome<HistoryResult>> => outcome(() => history(d, input)),
      doctor: (): Promise<Outcome<DoctorResult>> => outcome(() => doctor(d)),
      auditVerify: (input) => outcome(async () => ({ ...(await d.audit().verify(input.since_seq === undefined ? {} : { since_seq: input.since_seq })) })),
      planCommand: (input: unknown) => outcome(() => {
        if (!this.extras.planCommand) throw new HostgateError("unavailable", "plan_command is not available in this daemon.");
        return this.extras.planCommand(input);
      }),
      listResources: (): Promise<Outcome<ResourceEntry[]>> => outcome(() => listUnitResources(d.ctx.units)),
      listResourceTemplates: (): Promise<Outcome<ResourceTemplateEntry[]>> => outcome(() => [...unitResourceTemplates]),
      readResource: (uri: string): Promise<Outcome<ResourceContents>> => outcome(() => readUnitResource(uri, d.ctx.units)),
      close: () => Promise.resolve(),
    };
  }

  /** The admin-side client (admin socket, or `hostgate approve` in embedded tests). */
  admin(actor: string): AdminClient {
    const d = this.deps;
    return {
      show: (id: string): Promise<Outcome<ShowResult>> => outcome(() => show(d, id)),
      approve: (id: string, expected?: string): Promise<Outcome<ApproveResult>> => outcome(() => approve(d, id, actor, expected)),
      reject: (id: string) => outcome(() => reject(d, id, actor)),
      close: () => Promise.resolve(),
    };
  }
}
