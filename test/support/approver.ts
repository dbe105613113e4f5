/**
 * The test-only approver proof (core/approval-proof.ts, kind `test`): a stand-in for a human who passed the
 * terminal checks, for tests that approve in-process (`service.admin("human", testApprover())`). It is the only
 * way an in-process caller approves: the daemon has no exemption for its own process. The brand it carries is
 * importable only here and in core/approval-proof.ts (test/architecture/approver-proof.test.ts), so production
 * code cannot build one. A plan that needs a passkey still refuses it (`passkey_required`).
 */
import { TEST_APPROVER_BRAND } from "../../src/core/approval-test-brand.ts";
import type { TestProof } from "../../src/core/approval-proof.ts";
import { inProcessCaller, type Caller } from "../../src/core/caller.ts";

/** The test proof itself. */
export function testProof(): TestProof {
  return { kind: "test", brand: TEST_APPROVER_BRAND };
}

/** An in-process admin caller labelled `label` that approves with the test proof. */
export function testApprover(label = "human"): Caller {
  return { ...inProcessCaller("admin", label), test_proof: testProof() };
}
