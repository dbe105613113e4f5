import { chownSync, existsSync, lstatSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { SkillsEnvelope } from "../../src/ipc/skills.ts";
import { serveRegistry, skillFiles, writeRegistry } from "../helpers/skill-registry.ts";
import { skillsFixture, type SkillsFixture } from "../helpers/skills-service.ts";

/**
 * Installs write only where they mean to (issue 21, corpus case T3-27): real symlinks, real ownership, a
 * loopback registry, plan then apply through the service. The daemon here runs as root (these machines), as
 * the system daemon does; the "user" owning a home is uid 4242.
 */

type Ok = Extract<SkillsEnvelope, { ok: true }>;
const A = { actor: "test:alice", uid: 4242, client: "vitest" };
const code = (e: SkillsEnvelope): string => (e.ok ? "ok" : e.error.code);
interface Target { path: string; action: string; reason?: string; current: string | null }
interface PlanData { base: string; resolved_base: string; blocked: number; writes: number; lock: { path: string; change: string; reason?: string }; skills: { targets: Target[] }[] }
const planOf = (e: SkillsEnvelope): PlanData => (e as Ok).data.plan as PlanData;
const USER = 4242;

describe("T3-27: install targets behind links, other owners and races", () => {
  let server: Awaited<ReturnType<typeof serveRegistry>>;
  let f: SkillsFixture;
  let regDir: string;
  beforeAll(async () => {
    f = skillsFixture({ shipped: false });
    regDir = join(f.dir, "reg");
    writeRegistry(regDir, [{ name: "okskill", version: "1.0.0", files: skillFiles("okskill", { "scripts/run.sh": "echo ok\n" }) }]);
    server = await serveRegistry(regDir);
  });
  afterAll(async () => { await server.close(); f.close(); });

  let svc: SkillsFixture;
  beforeEach(() => {
    svc = skillsFixture({ shipped: false, registry: server.url });
    chownSync(svc.home, USER, USER);
  });
  afterEach(() => { svc.close(); });

  const args = { ref: "okskill@1.0.0", scope: "user", session: "t327" };
  const plan = (): Promise<SkillsEnvelope> => svc.service.call("skills_install_plan", args, A);
  const apply = (token: string): Promise<SkillsEnvelope> => svc.service.call("skills_install_apply", { ...args, confirm: token }, A);

  it("HOME/.claude/skills → dir A and HOME/.agents → dir B: every target and the lock are blocked, no token, nothing written in A or B", async () => {
    const a = join(svc.dir, "A");
    const b = join(svc.dir, "B");
    mkdirSync(a);
    mkdirSync(join(b, "skills"), { recursive: true });
    writeFileSync(join(b, "skills", "keep.txt"), "B's own file");
    mkdirSync(join(svc.home, ".claude"));
    chownSync(join(svc.home, ".claude"), USER, USER);
    symlinkSync(a, join(svc.home, ".claude", "skills"));
    symlinkSync(b, join(svc.home, ".agents"));
    const p = await plan();
    expect(p.ok).toBe(true);
    const data = planOf(p);
    expect(data.skills[0]!.targets.map((t) => [t.path, t.action])).toEqual([
      [join(svc.home, ".agents/skills/okskill"), "blocked"],
      [join(svc.home, ".claude/skills/okskill"), "blocked"],
    ]);
    expect(data.skills[0]!.targets.map((t) => t.reason)).toEqual([expect.stringMatching(/\.agents is a symbolic link/), expect.stringMatching(/\.claude\/skills is a symbolic link/)]);
    expect(data.lock).toMatchObject({ change: "blocked", reason: expect.stringMatching(/\.agents is a symbolic link/) as unknown });
    expect(data.blocked).toBe(3);
    expect((p as Ok).confirm).toBeUndefined();
    expect(readdirSync(a)).toEqual([]);
    expect(readdirSync(join(b, "skills"))).toEqual(["keep.txt"]);
  });

  it("a link swapped in between plan and apply is never written through: plan_changed, the link's target untouched", async () => {
    const p = await plan();
    expect(planOf(p).blocked).toBe(0);
    const elsewhere = join(svc.dir, "elsewhere");
    mkdirSync(join(elsewhere, "skills", "okskill"), { recursive: true });
    writeFileSync(join(elsewhere, "skills", "okskill", "root-owned.txt"), "not yours");
    symlinkSync(elsewhere, join(svc.home, ".claude"));
    expect(code(await apply((p as Ok).confirm!.token))).toBe("confirm.plan_changed");
    expect(readdirSync(join(elsewhere, "skills", "okskill"))).toEqual(["root-owned.txt"]);
    expect(existsSync(join(svc.home, ".agents"))).toBe(false);
  });

  it("a component owned by someone else (root here) blocks the target; a folder hostgate did not create is never replaced", async () => {
    mkdirSync(join(svc.home, ".claude", "skills"), { recursive: true });
    chownSync(join(svc.home, ".claude"), USER, USER);
    // .claude/skills stays root-owned, inside the user's home.
    mkdirSync(join(svc.home, ".agents", "skills", "okskill"), { recursive: true, mode: 0o700 });
    for (const d of [".agents", ".agents/skills", ".agents/skills/okskill"]) chownSync(join(svc.home, d), USER, USER);
    writeFileSync(join(svc.home, ".agents", "skills", "okskill", "SKILL.md"), "the user's own skill");
    const p = await plan();
    const targets = planOf(p).skills[0]!.targets;
    expect(targets.map((t) => t.action)).toEqual(["blocked", "blocked"]);
    expect(targets[0]!.reason).toMatch(/was not installed by hostgate/);
    expect(targets[1]!.reason).toMatch(/\.claude\/skills is owned by uid 0, not by the base's owner \(uid 4242\)/);
    // No digest of either folder is shown.
    expect(JSON.stringify(p)).not.toMatch(/"current":"sha256/);
  });

  it("what it creates belongs to the home's owner; a re-install replaces only its own folder; the plan shows the resolved base", async () => {
    const link = join(svc.dir, "home-link");
    symlinkSync(svc.home, link);
    svc.deps.bases.user = link;
    const p = await plan();
    const data = planOf(p);
    expect(data).toMatchObject({ base: link, resolved_base: svc.home, blocked: 0, writes: 3, lock: { path: join(svc.home, ".agents/skills-lock.json"), change: "add" } });
    const applied = await apply((p as Ok).confirm!.token);
    expect(applied.ok, JSON.stringify(applied)).toBe(true);
    for (const rel of [".agents", ".agents/skills", ".agents/skills/okskill", ".agents/skills/okskill/SKILL.md", ".agents/skills/okskill/scripts/run.sh", ".claude/skills/okskill", ".agents/skills-lock.json"]) {
      const st = lstatSync(join(svc.home, rel));
      expect([rel, st.uid, st.gid]).toEqual([rel, USER, USER]);
    }
    expect(statSync(join(svc.home, ".agents/skills/okskill/scripts/run.sh")).mode & 0o777).toBe(0o755);
    // Planned again: unchanged, its digest shown (hostgate wrote it).
    const again = planOf(await plan());
    expect(again.skills[0]!.targets.map((t) => [t.action, t.current])).toEqual([["unchanged", expect.stringMatching(/^sha256:/)], ["unchanged", expect.stringMatching(/^sha256:/)]]);
    // Renamed away and replaced by a look-alike: not the folder hostgate created, so blocked.
    const claude = join(svc.home, ".claude/skills/okskill");
    renameSync(claude, `${claude}.moved`);
    mkdirSync(claude);
    chownSync(claude, USER, USER);
    expect(planOf(await plan()).skills[0]!.targets[1]).toMatchObject({ action: "blocked", reason: expect.stringMatching(/not installed by hostgate/) as unknown });
    rmSync(claude, { recursive: true });
  });

  it("the lock file as a symlink is blocked, never read or written through", async () => {
    mkdirSync(join(svc.home, ".agents"));
    chownSync(join(svc.home, ".agents"), USER, USER);
    const outside = join(svc.dir, "outside-lock.json");
    writeFileSync(outside, '{"lock_version":1,"skills":{}}');
    symlinkSync(outside, join(svc.home, ".agents", "skills-lock.json"));
    const data = planOf(await plan());
    expect(data.lock).toMatchObject({ change: "blocked", reason: expect.stringMatching(/symbolic link/) as unknown });
    expect(code(await svc.service.call("skills_sync_plan", { scope: "user" }, A))).toBe("precondition_failed");
  });
});
