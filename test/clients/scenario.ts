/**
 * The one scenario every client test runs (issue 22, "the four clients list and call plan"), declared once:
 * a real client, configured by `hostgate setup`, talks to a scripted model of its vendor's API and to the real
 * `hostgate mcp` (with its own embedded daemon in the run's temp dir). The model calls `plan` with one WriteFile
 * step, the client runs the call through hostgate, and the model ends the turn once the result comes back.
 */
import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientBin, clientMissing, makeWorkspace, pending, planArgs, runClient, setupClient, topLevelCombinators, type ClientPackage, type ClientRun, type PendingTransaction, type Workspace } from "./harness.ts";
import { DONE_TEXT, startScriptedModel, type ScriptedModel, type VendorApi } from "./model/scripted-model.ts";

/** How to run one client: what to install, how setup names it, which API it speaks and how it is started. */
export interface ClientSpec {
  /** Label in test names ("Claude Code"). */
  label: string;
  package: ClientPackage;
  /** `hostgate setup --<setupFlag>`. */
  setupFlag: string;
  vendor: VendorApi;
  /** Writes what the client needs besides setup's MCP entry (its model provider pointing at `model`). */
  prepare?(ws: Workspace, model: ScriptedModel): void;
  /** The client's non-interactive command line (after the binary). */
  args(ws: Workspace, model: ScriptedModel): string[];
  /** Environment on top of the workspace's (base URL, dummy key, timeouts). */
  env(ws: Workspace, model: ScriptedModel): Record<string, string>;
  /** Bound of the whole client run; the process group is killed after it. */
  timeoutMs: number;
}

/** Everything one run left for the assertions. */
export interface ScenarioResult {
  ws: Workspace;
  model: ScriptedModel;
  setupOutput: string;
  run: ClientRun;
  pending: PendingTransaction[];
}

/** Runs the scenario for `spec` and collects its evidence; the caller closes `model` and removes `ws`. */
export async function runScenario(spec: ClientSpec): Promise<ScenarioResult> {
  const ws = makeWorkspace(spec.setupFlag);
  const model = await startScriptedModel({ vendor: spec.vendor, planArgs: planArgs(ws) });
  try {
    const setupOutput = await setupClient(ws, spec.setupFlag);
    spec.prepare?.(ws, model);
    const run = await runClient(clientBin(spec.package), spec.args(ws, model), { ...ws.env, ...spec.env(ws, model) }, ws.cwd, spec.timeoutMs);
    return { ws, model, setupOutput, run, pending: await pending(ws) };
  } catch (err) {
    await model.close();
    ws.remove();
    throw err;
  }
}

/** What a failed assertion prints: the client's exit and output tail, and what the model saw. */
function evidence(r: ScenarioResult): string {
  const reqs = r.model.requests.map((q) => `${q.method} ${q.path} → ${q.answered} (plan offered as ${q.planTool ?? "-"}, ${q.toolNames.length} tools)`);
  return [`exit ${r.run.code} signal ${r.run.signal} timed out ${r.run.timedOut}`, `model requests:\n  ${reqs.join("\n  ")}`, `stdout (tail): ${r.run.stdout.slice(-1500)}`, `stderr (tail): ${r.run.stderr.slice(-1500)}`, `tool result the model got: ${(r.model.requests.find((q) => q.answered === "done")?.toolResult ?? "none").slice(0, 1500)}`].join("\n");
}

/**
 * Declares the client's test block: skipped with "SKIPPING …" when the client is not installed (a failure
 * under HOSTGATE_REQUIRE_PEERS=1), or with `skipReason` when the client cannot be made to run here.
 */
export function describeClient(spec: ClientSpec, skipReason: string | null = null): void {
  const missing = clientMissing(spec.package);
  if (skipReason !== null) process.stderr.write(`SKIPPING ${spec.label} client harness: ${skipReason}\n`);
  describe.skipIf(missing || skipReason !== null)(`${spec.label} (${spec.package.pkg}, real client) lists hostgate's tools and calls plan`, () => {
    let r: ScenarioResult;
    beforeAll(async () => { r = await runScenario(spec); }, spec.timeoutMs + 60_000);
    afterAll(async () => {
      if (!r) return;
      await r.model.close();
      r.ws.remove();
    });

    it("the client ran to completion within its bound", () => {
      expect(r.run.timedOut, evidence(r)).toBe(false);
      expect(r.run.code, evidence(r)).toBe(0);
    });

    it("the model API received hostgate's tools, plan among them with the schema the client forwarded, no top-level oneOf/anyOf/allOf", () => {
      const first = r.model.requests.find((q) => q.planTool !== null);
      expect(first, evidence(r)).toBeDefined();
      // Beside plan, other tools of hostgate's list (fixed and direct ones), under the same prefix as plan.
      const prefix = first!.planTool!.slice(0, -"plan".length);
      for (const tool of ["execute", "history", "audit_verify", "get_disk_usage"]) expect(first!.toolNames, `${prefix}${tool}`).toContain(`${prefix}${tool}`);
      const schema = first!.planSchema as Record<string, unknown>;
      expect(schema, "the forwarded plan schema").toMatchObject({ type: "object" });
      expect(Object.keys(schema.properties ?? {})).toEqual(expect.arrayContaining(["steps", "intent"]));
      for (const q of r.model.requests.filter((x) => x.planSchema !== null)) expect(topLevelCombinators(q.planSchema), q.path).toEqual([]);
    });

    it("the client called plan, and hostgate's daemon holds that planned WriteFile (nothing written)", () => {
      expect(r.model.requests.filter((q) => q.answered === "call").length, evidence(r)).toBeGreaterThanOrEqual(1);
      expect(r.pending, evidence(r)).toHaveLength(1);
      const tx = r.pending[0]!;
      expect(tx.action_name).toBe("WriteFile");
      expect(tx.host).toBe("local");
      expect(tx.summary).toContain(r.ws.target);
      expect(existsSync(r.ws.target), "a plan writes nothing before approval").toBe(false);
    });

    it("plan's result (naming the transaction) reached the model on the next request, and the turn ended with the model's text", () => {
      const done = r.model.requests.find((q) => q.answered === "done");
      expect(done, evidence(r)).toBeDefined();
      expect(done!.toolResult).toContain(r.pending[0]!.transaction_id);
      expect(r.run.stdout, evidence(r)).toContain(DONE_TEXT);
    });
  });
}
