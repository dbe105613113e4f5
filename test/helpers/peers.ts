/**
 * Loud skips for tests that need a real peer (a mountable tmpfs, an apt index, systemd…). A missing peer is
 * printed on stderr as "SKIPPING <what>: <why>"; with HOSTGATE_REQUIRE_PEERS=1 (as .ci/run sets) it throws
 * instead, so the test file fails in CI rather than passing silently. Returns true when the tests must skip.
 */
export function peerMissing(what: string, missing: string | null): boolean {
  if (missing === null) return false;
  if (process.env.HOSTGATE_REQUIRE_PEERS === "1") throw new Error(`${what} needs a peer that is missing: ${missing} (HOSTGATE_REQUIRE_PEERS=1)`);
  process.stderr.write(`SKIPPING ${what}: ${missing}\n`);
  return true;
}
