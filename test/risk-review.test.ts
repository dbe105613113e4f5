/** Commands a newcomer review found slipping through the risk engine; each must stay at least require_approval. */
import { describe, expect, it } from "vitest";
import { testEngine as engine } from "./support/risk-engine.ts";

const CASES: [string, "deny" | "require_approval"][] = [
  ["dpkg -i x.deb", "require_approval"],
  ["rpm -Uvh pkg.rpm", "require_approval"],
  ["echo 'rm -rf /' | xargs -0 sh -c", "deny"],
  ["echo 'id' | xargs -0 sh -c", "require_approval"],
  ["printf 'reboot' | xargs -d '\\n' bash -c", "require_approval"],
];

describe("review findings", () => {
  for (const [command, atLeast] of CASES) {
    it(`${command} → at least ${atLeast}`, async () => {
      const r = (await engine()).assess(command);
      expect(r.decision === "deny" || (atLeast === "require_approval" && r.decision === "require_approval"), `${command}: ${r.decision}`).toBe(true);
    });
  }
  it("keeps read-only package queries and plain xargs allowed", async () => {
    for (const c of ["dpkg -l", "rpm -qa", "echo a b | xargs ls"]) expect((await engine()).assess(c).decision).toBe("allow");
  });
});
