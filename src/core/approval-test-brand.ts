/**
 * The brand of the test-only approver proof (core/approval-proof.ts, kind `test`). A proof of that kind is
 * accepted only when it carries this exact symbol, and only `core/approval-proof.ts` and test code may import
 * this module: `test/architecture/approver-proof.test.ts` fails when any other file under src/ (or the
 * built bundle's daemon code path) names it. So no production path can build a test proof, by literal or
 * otherwise: a `{ kind: "test" }` object without the symbol is refused like a forged proof.
 */
export const TEST_APPROVER_BRAND: unique symbol = Symbol("hostgate.test-approver");
