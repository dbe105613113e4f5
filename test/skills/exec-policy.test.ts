import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CedarPolicyEngine } from "../../src/adapters/policy-cedar/cedar-engine.ts";
import type { SkillsEnvelope } from "../../src/ipc/skills.ts";
import { skillsFixture, type SkillsFixture } from "../helpers/skills-service.ts";

/**
 * Issue 22: a skill launch under a Cedar policy (action exec on Hostgate::Host::"local", the caller as principal,
 * the skill's name/digest/entrypoint in the context), the shipped example permit, and refusals that name the
 * gate that refused (exec gate, grant, policy) with a fix that works. Real Cedar (cedar-wasm), real risk engine,
 * real process runner; every launch but one is a dry run (all checks, nothing runs).
 */
type Err = Extract<SkillsEnvelope, { ok: false }>;
const err = (e: SkillsEnvelope): Err["error"] => { if (e.ok) throw new Error(`${e.kind} answered ok`); return e.error; };
const operator = { actor: "test:op", role: "operator", uid: 1000, client: "claude-code" };

let policies: string;
beforeAll(() => {
  policies = mkdtempSync(join(tmpdir(), "hg-skill-cedar-"));
  cpSync("examples/policies", join(policies, "all"), { recursive: true });
  // The same set without the skills permit: what a daemon set up before issue 22 has.
  cpSync("examples/policies", join(policies, "no-skills"), { recursive: true });
  rmSync(join(policies, "no-skills", "30-skills.cedar"));
});
afterAll(() => { rmSync(policies, { recursive: true, force: true }); });

describe("skills_execute under the shipped Cedar policies (examples/policies)", () => {
  let f: SkillsFixture;
  let ref: string;
  beforeAll(async () => {
    f = skillsFixture({ policy: CedarPolicyEngine.load(join(policies, "all")) });
    const r = await f.service.call("skills_resolve", { ref: "disk-full" }, operator);
    if (!r.ok) throw new Error(r.error.message);
    ref = r.data.pinned_ref as string;
  });
  afterAll(() => { f.close(); });

  it("T22-skills-grant: an ungranted entrypoint is refused by the grant gate, and the hint is the grant command", async () => {
    const e = err(await f.service.call("skills_execute", { ref, entrypoint: "diagnose", dryRun: true }, operator));
    expect(e).toMatchObject({ code: "exec_refused", details: { gate: "grant" } });
    expect(e.message).toMatch(/^The grant gate refused/);
    expect(e.hint).toBe(`An administrator grants it at a terminal: hostgate skills grants add ${ref} diagnose`);
  });

  it("T22-skills-permit: once granted, the shipped permit (30-skills.cedar) lets an operator's named client launch it", async () => {
    const g = await f.service.admin("skills_grants_add", { ref, entrypoint: "diagnose" }, "admin:root");
    expect(g.ok).toBe(true);
    const r = await f.service.call("skills_execute", { ref, entrypoint: "diagnose", dryRun: true }, operator);
    if (!r.ok) throw new Error(`${r.error.message} ${r.error.hint ?? ""}`);
    expect(r.data).toMatchObject({ dry_run: true, granted: true, risk: { refused_by: null, policy_source: "cedar", policies: ["granted-read-only-runbooks"] } });
  });

  it("T22-skills-guards: the shipped forbids still apply to launches (a client that gives no name)", async () => {
    const e = err(await f.service.call("skills_execute", { ref, entrypoint: "diagnose", dryRun: true }, { ...operator, client: undefined }));
    expect(e).toMatchObject({ code: "exec_refused", details: { gate: "policy" } });
    expect(e.message).toMatch(/^The policy refused this launch: policy \(cedar\): clients without a name may only run read-only commands/);
  });

  it("T22-skills-role: an observer is no principal the permit names (default deny), and the hint is a permit that would work", async () => {
    const e = err(await f.service.call("skills_execute", { ref, entrypoint: "diagnose", dryRun: true }, { ...operator, role: "observer" }));
    expect(e).toMatchObject({ code: "exec_refused", details: { gate: "policy" } });
    expect(e.message).toMatch(/no policy permits/);
    expect(e.hint).toContain('principal in Hostgate::Role::"observer"');
  });
});

describe("skills_execute with policy.dir set but no skills permit", () => {
  let f: SkillsFixture;
  let dir: string;
  afterAll(() => { f.close(); rmSync(dir, { recursive: true, force: true }); });

  it("T22-skills-policy: refused by the policy gate, and the permit the hint writes, added to policy.dir, lets it run", async () => {
    dir = mkdtempSync(join(tmpdir(), "hg-skill-nopermit-"));
    cpSync(join(policies, "no-skills"), dir, { recursive: true });
    const engine = CedarPolicyEngine.load(dir);
    f = skillsFixture({ policy: engine });
    const resolved = await f.service.call("skills_resolve", { ref: "memory-pressure" }, operator);
    if (!resolved.ok) throw new Error(resolved.error.message);
    const ref = resolved.data.pinned_ref as string;
    expect((await f.service.admin("skills_grants_add", { ref, entrypoint: "diagnose" }, "admin:root")).ok).toBe(true);
    const e = err(await f.service.call("skills_execute", { ref, entrypoint: "diagnose" }, operator));
    expect(e).toMatchObject({ code: "exec_refused", details: { gate: "policy" } });
    expect(e.message).toBe("The policy refused this launch: policy (cedar): no policy permits exec of this command on this host (default deny)");
    // The hint's permit, written as a policy file, is valid Cedar and permits exactly this launch.
    const permit = /e\.g\. (permit .*?;) \(/.exec(e.hint ?? "")?.[1];
    expect(permit).toBeDefined();
    writeFileSync(join(dir, "40-hint.cedar"), `${permit}\n`);
    expect(engine.reload()).toMatchObject({ ok: true });
    const r = await f.service.call("skills_execute", { ref, entrypoint: "diagnose" }, operator);
    if (!r.ok) throw new Error(`${r.error.message} ${r.error.hint ?? ""}`);
    expect(r.data).toMatchObject({ exit_code: 0, risk: { refused_by: null, policy_source: "cedar" } });
    expect(r.data.stdout).toMatch(/== Memory \(MiB\) ==/);
    // Refusal and run are both in the audit chain, the refusal naming its gate.
    const refused = f.audit.query({}).find((x) => x.kind === "skills.exec.refused");
    expect(JSON.parse(String(refused?.payload))).toMatchObject({ gate: "policy", entrypoint: "diagnose" });
  });
});

describe("skills_execute with the exec gate off", () => {
  it("T22-skills-gate: names the exec gate and says to set skills.allow_exec in the daemon's configuration", async () => {
    const f = skillsFixture({ exec: false });
    try {
      const e = err(await f.service.call("skills_execute", { ref: "disk-full@sha256:" + "0".repeat(64), entrypoint: "diagnose" }, operator));
      expect(e).toMatchObject({ code: "forbidden_method", details: { gate: "exec" } });
      expect(e.message).toMatch(/^The skills exec gate refused/);
      expect(e.hint).toMatch(/skills\.allow_exec: true in the daemon's configuration/);
    } finally { f.close(); }
  });
});
