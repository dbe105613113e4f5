import { loadRiskEngine } from "../adapters/shell-parser.ts";
import { describe, expect, it } from "vitest";
import { HostgateError } from "../core/errors.ts";
import type { PolicyEngine } from "../ports/policy-engine.ts";
import { assessCommand, AssessCommandInputSchema, CommandAssessmentSchema } from "./assess-command.ts";

async function errorOf(input: unknown): Promise<HostgateError> {
  try {
    await assessCommand(input, { engine: await loadRiskEngine() });
  } catch (err) {
    if (err instanceof HostgateError) return err;
    throw err;
  }
  throw new Error("expected assessCommand to throw");
}

describe("assessCommand", () => {
  it("returns the engine's verdict labelled as risk-engine-only, matching the output schema", async () => {
    const out = await assessCommand({ command: "rm -rf /var/lib/postgresql/old-backup", target: "pg-primary" }, { engine: await loadRiskEngine() });
    expect(CommandAssessmentSchema.parse(out)).toEqual(out);
    expect(out.decision).toBe("deny");
    expect(out.risk_level).toBe("critical");
    expect(out.target).toBe("pg-primary");
    expect(out.policy.source).toBe("risk_engine_only");
    expect(out.reason).toMatch(/^command risk: /);
    expect(out.signals[0]!.span).toEqual({ start: 0, end: 37 });
  });
  it("goes through the PolicyEngine it is given, which may narrow but never loosen the risk engine", async () => {
    const engine = await loadRiskEngine();
    const permitAll: PolicyEngine = { name: "permit-all", configured: true, decide: () => ({ decision: "allow", reasons: ["everything"], policies: ["p"] }) };
    const denyAll: PolicyEngine = { name: "deny-all", configured: true, decide: () => ({ decision: "deny", reasons: ["nothing"], policies: ["q"] }) };
    const critical = await assessCommand({ command: "rm -rf /" }, { engine, policy: permitAll });
    expect([critical.decision, critical.policy.source]).toEqual(["deny", "permit-all"]);
    const high = await assessCommand({ command: "systemctl stop nginx" }, { engine, policy: permitAll });
    expect(high.decision).toBe((await assessCommand({ command: "systemctl stop nginx" }, { engine })).decision);
    expect(high.decision).not.toBe("allow");
    const low = await assessCommand({ command: "df -h" }, { engine, policy: denyAll });
    expect([low.decision, low.policy.note]).toEqual(["deny", "nothing"]);
  });
  it("allows a read-only command and reports no signals", async () => {
    const out = await assessCommand({ command: "df -h", interpreter: "sh" }, { engine: await loadRiskEngine() });
    expect([out.decision, out.risk_level, out.signals.length, out.interpreter]).toEqual(["allow", "low", 0, "sh"]);
  });
  it("rejects NUL and other control characters with invalid_params", async () => {
    for (const bad of ["ls\u0000 /", "ls\r", "echo \u001b[2J"]) {
      const e = await errorOf({ command: bad });
      expect(e.code).toBe("invalid_params");
      expect(e.message).toMatch(/control character/);
    }
    expect((await assessCommand({ command: "ls\t-l\nls" }, { engine: await loadRiskEngine() })).decision).toBe("allow");
  });
  it("rejects oversized, empty, missing and unknown fields", async () => {
    expect((await errorOf({ command: "x".repeat(64 * 1024 + 1) })).message).toMatch(/limit is 65536/);
    expect((await errorOf({ command: "é".repeat(33 * 1024) })).code).toBe("invalid_params");
    expect((await errorOf({ command: "" })).code).toBe("invalid_params");
    expect((await errorOf({})).code).toBe("invalid_params");
    expect((await errorOf({ command: "ls", shell: "bash" })).code).toBe("invalid_params");
  });
  it("exports a reusable input schema", () => {
    expect(AssessCommandInputSchema.safeParse({ command: "ls", target: "h", interpreter: "bash" }).success).toBe(true);
  });
});
