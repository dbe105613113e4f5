import { cpSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { gate, judge } from "../../core/policy/gate.ts";
import { execPolicyRequest, type PolicyPrincipal } from "../../core/policy/exec-request.ts";
import type { HostRecord } from "../../core/inventory/record.ts";
import type { RiskEngine } from "../../core/risk/index.ts";
import { testEngine } from "../../../test/support/risk-engine.ts";
import { CedarPolicyEngine } from "./cedar-engine.ts";

const operator: PolicyPrincipal = { role: "operator", client: "claude-code", uid: 1000 };
const host = (name: string, tags: string[], provider: HostRecord["provider"] = "static"): HostRecord => ({ name, primary_ip: "10.0.0.5", provider, backend: provider, meta: {}, tags });
const lab = host("lab1", ["lab"]);
const prod = host("db1", ["prod"]);
const strict = { allow_unverified: false, risk_disabled: false };

let risk: RiskEngine;
let examples: CedarPolicyEngine;
const decide = (eng: CedarPolicyEngine | null, command: string, h: HostRecord, who: PolicyPrincipal = operator) => {
  const a = risk.assess(command, { interpreter: "bash" });
  return judge(a, eng, execPolicyRequest(a, command, "bash", who, h), strict);
};
const dirWith = (files: Record<string, string>): string => {
  const d = mkdtempSync(join(tmpdir(), "hg-cedar-"));
  for (const [n, t] of Object.entries(files)) writeFileSync(join(d, n), t);
  return d;
};

beforeAll(async () => {
  risk = await testEngine();
  examples = CedarPolicyEngine.load("examples/policies");
});

describe("Cedar policy engine with the shipped examples/policies", () => {
  it("loads every shipped example", () => {
    expect(examples.status()).toMatchObject({ files: ["00-read-only.cedar", "10-changes.cedar", "20-guards.cedar", "30-skills.cedar"], policies: 9, last_error: null });
  });
  it("allow: a read-only command on any host (context.risk_rank, principal role)", () => {
    expect(decide(examples, "uptime", prod)).toMatchObject({ decision: "allow", policy: { source: "cedar", decision: "allow", policies: ["read-only-anywhere"] } });
  });
  it("deny by default: a role no policy names", () => {
    const d = decide(examples, "uptime", prod, { ...operator, role: "observer" });
    expect(d.decision).toBe("deny");
    expect(d.reasons.join(" ")).toMatch(/no policy permits/);
  });
  it("resource tags: a change is allowed on lab, needs approval on prod", () => {
    expect(decide(examples, "touch /tmp/x", lab).decision).toBe("allow");
    expect(decide(examples, "touch /tmp/x", prod)).toMatchObject({ decision: "require_approval", policy: { reasons: ["changes on prod hosts need a human approval"] } });
  });
  it("require_biometric from @decision on a pci host", () => {
    expect(decide(examples, "uptime", host("card1", ["pci"])).decision).toBe("require_biometric");
  });
  it("context argv and programs: raw package removal is forbidden", () => {
    const d = decide(examples, "apt-get remove -y nginx", lab);
    expect(d.decision).toBe("deny");
    expect(d.policy.policies).toContain("no-raw-package-removal");
  });
  it("context signals: stopping a service on prod is forbidden by signal id", () => {
    const d = decide(examples, "systemctl stop nginx", prod);
    expect(d.decision).toBe("deny");
    expect(d.policy.policies).toContain("no-service-stop-on-prod");
  });
  it("resource provider: docker hosts accept read-only commands only", () => {
    expect(decide(examples, "uptime", host("web", ["lab"], "docker")).decision).toBe("allow");
    expect(decide(examples, "touch /tmp/x", host("web", ["lab"], "docker")).policy.policies).toContain("docker-read-only");
  });
  it("principal client: an unnamed client gets read-only commands only", () => {
    expect(decide(examples, "touch /tmp/x", lab, { ...operator, client: "" }).decision).toBe("deny");
  });
});

describe("the gate: a policy only narrows the risk engine", () => {
  it("narrow-only: a policy permitting everything still cannot run a critical command", () => {
    const all = CedarPolicyEngine.load(dirWith({ "all.cedar": "permit (principal, action, resource);" }));
    const d = decide(all, "mkfs.ext4 /dev/sda1", lab);
    expect(d.policy.decision).toBe("allow");
    expect(d).toMatchObject({ decision: "deny", risk_level: "critical" });
  });
  it("narrow-only: the risk engine's require_approval stands under a permit-all policy", () => {
    const all = CedarPolicyEngine.load(dirWith({ "all.cedar": "permit (principal, action, resource);" }));
    const d = decide(all, "systemctl stop nginx", lab);
    expect(d.policy.decision).toBe("allow");
    expect(d).toMatchObject({ decision: "require_approval", risk_decision: "require_approval", risk_level: "high" });
  });
  it("no policy configured: every command is refused unless allow_unverified", () => {
    expect(decide(null, "uptime", lab)).toMatchObject({ decision: "deny", policy: { source: "none" } });
    const a = risk.assess("uptime", { interpreter: "bash" });
    expect(gate(a, null, { allow_unverified: true, risk_disabled: false }).decision).toBe("allow");
  });
  it("risk.disabled bypasses the engine's decision but never critical", () => {
    const hi = risk.assess("systemctl stop nginx", { interpreter: "bash" });
    expect(gate(hi, null, { allow_unverified: true, risk_disabled: true }).decision).toBe("allow");
    const crit = risk.assess("mkfs.ext4 /dev/sda1", { interpreter: "bash" });
    expect(gate(crit, null, { allow_unverified: true, risk_disabled: true }).decision).toBe("deny");
  });
  it("fails closed when a forbid policy errors while evaluating (Cedar would skip it)", () => {
    const eng = CedarPolicyEngine.load(dirWith({ "p.cedar": `permit (principal, action, resource);
      forbid (principal, action, resource) when { context.risk_rank + 9223372036854775807 > 0 };` }));
    const d = decide(eng, "touch /tmp/x", lab);
    expect(d.decision).toBe("deny");
    expect(d.reasons.join(" ")).toMatch(/failed to evaluate/);
  });
});

describe("loading and reload", () => {
  it("a file that does not parse keeps the old set and says so", () => {
    const d = mkdtempSync(join(tmpdir(), "hg-cedar-"));
    cpSync("examples/policies", d, { recursive: true });
    const eng = CedarPolicyEngine.load(d);
    writeFileSync(join(d, "30-broken.cedar"), "permit (principal, action, resource");
    const r = eng.reload();
    expect(r.ok).toBe(false);
    expect(eng.status()).toMatchObject({ policies: 9 });
    expect(eng.status().last_error).toMatch(/30-broken\.cedar.*previously loaded policies stay in force/);
    expect(decide(eng, "uptime", prod).decision).toBe("allow");
    writeFileSync(join(d, "30-broken.cedar"), `@id("lab-only") forbid (principal, action, resource) unless { resource.tags.contains("lab") };`);
    expect(eng.reload()).toEqual({ ok: true, policies: 10 });
    expect(eng.status().last_error).toBeNull();
    expect(decide(eng, "uptime", prod).decision).toBe("deny");
  });
  it("T20-cedar-memo: a repeated request gets the same verdict as a copy of its own; a host's other tags are another request", () => {
    const eng = CedarPolicyEngine.load("examples/policies");
    const first = decide(eng, "touch /tmp/x", lab);
    first.policy.policies.push("tampered");
    first.reasons.push("tampered");
    const again = decide(eng, "touch /tmp/x", lab);
    expect(again).toMatchObject({ decision: "allow" });
    expect(again.policy.policies).not.toContain("tampered");
    expect(again.reasons).not.toContain("tampered");
    // Same name, same command: only the tags differ, and so does the verdict (the attributes are in the key).
    expect(decide(eng, "touch /tmp/x", host("lab1", ["prod"])).decision).toBe("require_approval");
  });
  it("a misspelt attribute is a load error (validated against hostgate's schema), not a silent non-match", () => {
    expect(() => CedarPolicyEngine.load(dirWith({ "p.cedar": `permit (principal, action, resource) when { context.comand == "x" };` }))).toThrow(/schema/);
  });
  it("an empty or missing directory is an error that names it", () => {
    expect(() => CedarPolicyEngine.load(dirWith({}))).toThrow(/no \*\.cedar file/);
    expect(() => CedarPolicyEngine.load("/nonexistent/hostgate-policies")).toThrow(/cannot read policy directory/);
  });
  it("@decision on a forbid, or an unknown @decision, is refused", () => {
    expect(() => CedarPolicyEngine.load(dirWith({ "p.cedar": `@decision("require_approval") forbid (principal, action, resource);` }))).toThrow(/permit/);
    expect(() => CedarPolicyEngine.load(dirWith({ "p.cedar": `@decision("maybe") permit (principal, action, resource);` }))).toThrow(/@decision/);
  });
});
