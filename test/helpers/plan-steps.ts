import { approveViaPty, rawIpc, type DaemonProcess } from "./daemon.ts";

/** One planned step as the daemon returns it. */
export type Step = { transaction_id: string; action_name: string; params: Record<string, unknown>; preview: { summary: string; text: string; confirm?: { window_s: number } } };
export type ErrorBody = { code: string; message: string; hint?: string; details?: Record<string, unknown> };
export type Ok<T> = { ok: true; value: T } | { ok: false; error: ErrorBody };

/** One daemon call over its socket: the method's outcome (a refusal by the socket itself as an error too). */
export async function call<T>(socket: string, method: string, params: unknown): Promise<Ok<T>> {
  const r = await rawIpc(socket, method, params) as { ok: boolean; result?: Ok<T>; error?: ErrorBody };
  return r.ok ? r.result! : { ok: false, error: r.error! };
}

/** Plans one step of `action`. */
export async function plan(d: DaemonProcess, action: string, params: Record<string, unknown>): Promise<Ok<{ plan_id: string; steps: Step[] }>> {
  return call(d.agentSocket, "plan", { steps: [{ action, params }] });
}

/**
 * The summary of a one-step plan's preview, or the refusal's error. A step already in place is refused
 * `nothing_to_do` (no transaction): its summary is then the one the refusal's details carry.
 */
export async function previewOf(d: DaemonProcess, action: string, params: Record<string, unknown>): Promise<{ summary?: string; error?: ErrorBody; step?: Step }> {
  const p = await plan(d, action, params);
  if (!p.ok) return p.error.code === "nothing_to_do" ? { summary: nothingToDoSummary(p.error), error: p.error } : { error: p.error };
  return { summary: p.value.steps[0]!.preview.summary, step: p.value.steps[0]! };
}

/** The first step's preview summary a `nothing_to_do` refusal carries in its details. */
export function nothingToDoSummary(e: { code: string; details?: Record<string, unknown> | undefined }): string | undefined {
  if (e.code !== "nothing_to_do") return undefined;
  return (e.details?.steps as { summary: string }[] | undefined)?.[0]?.summary;
}

/** Plans one step, approves it through the real CLI in a pty, executes it; returns the step and its result (throws unless it succeeded). */
export async function applyStep(d: DaemonProcess, action: string, params: Record<string, unknown>): Promise<{ step: Step; result: { status: string; output: unknown; confirm?: { command: string; window_s: number; deadline: string } } }> {
  const p = await plan(d, action, params);
  if (!p.ok) throw new Error(p.error.message);
  const step = p.value.steps[0]!;
  const a = await approveViaPty(d.adminSocket, p.value.plan_id);
  if (!a.receipt) throw new Error(a.output);
  const x = await call<{ results: { status: string; output: unknown; error: unknown }[] }>(d.agentSocket, "execute", { approval_receipt: a.receipt, steps: [{ transaction_id: step.transaction_id, action_name: step.action_name, params: step.params }] });
  if (!x.ok) throw new Error(x.error.message);
  const result = x.value.results[0]! as { status: string; output: unknown; error: unknown; confirm?: { command: string; window_s: number; deadline: string } };
  if (result.status !== "succeeded") throw new Error(JSON.stringify(result.error));
  return { step, result };
}

/** The state history shows for a transaction (null: none yet). */
export async function stateOf(d: DaemonProcess, txId: string): Promise<string | null> {
  const h = await call<{ entries: { transaction_id: string | null; kind: string; status: string | null }[] }>(d.agentSocket, "history", { limit: 500 });
  if (!h.ok) throw new Error(h.error.message);
  return h.value.entries.find((e) => e.transaction_id === txId)?.status ?? null;
}

/** Polls `what` every 100 ms until it holds; throws after `ms`. */
export async function waitFor(what: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await what())) {
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 100));
  }
}
