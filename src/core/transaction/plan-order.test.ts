import { describe, expect, it } from "vitest";
import { planOrderProblem, type PlanStepState } from "./plan-order.ts";

const step = (seq: number, state: PlanStepState["state"]): PlanStepState => ({ id: `tx${seq}`, seq, action_name: "WriteFile", state });

describe("plan order (issue 22)", () => {
  it("lets step 1 run at once, and a later step only when every earlier one succeeded", () => {
    const plan = [step(1, "approved"), step(2, "approved"), step(3, "approved")];
    expect(planOrderProblem(plan, 1)).toBeNull();
    expect(planOrderProblem(plan, 3)).toMatchObject({ kind: "waiting", step: { id: "tx1" } });
    expect(planOrderProblem([step(1, "succeeded"), step(2, "succeeded"), step(3, "approved")], 3)).toBeNull();
    expect(planOrderProblem([step(1, "succeeded"), step(2, "executing"), step(3, "approved")], 3)).toMatchObject({ kind: "waiting", step: { id: "tx2" } });
  });
  it("halts for good at the first earlier step that ended any other way", () => {
    for (const ended of ["failed", "unknown", "rejected", "expired"] as const) {
      expect(planOrderProblem([step(1, "succeeded"), step(2, ended), step(3, "approved")], 3), ended).toMatchObject({ kind: "halted", step: { id: "tx2" } });
    }
    // Listed out of order, the first blocking step in plan order is named.
    expect(planOrderProblem([step(3, "approved"), step(2, "failed"), step(1, "failed")], 3)).toMatchObject({ kind: "halted", step: { id: "tx1" } });
  });
});
