import { existsSync, mkdirSync, readFileSync, readdirSync, appendFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SkillsEnvelope } from "../../src/ipc/skills.ts";
import { CONFIRM_TTL_MS } from "../../src/core/skills/confirm.ts";
import { skillsFixture, type SkillsFixture } from "../helpers/skills-service.ts";

type Ok = Extract<SkillsEnvelope, { ok: true }>;
const ok = (e: SkillsEnvelope): Ok => { if (!e.ok) throw new Error(`${e.kind}: ${e.error.code}: ${e.error.message}`); return e; };
const code = (e: SkillsEnvelope): string => (e.ok ? "ok" : e.error.code);
const A = { actor: "test:alice", uid: 1000, client: "vitest" };
const B = { actor: "test:bob", uid: 1001, client: "vitest" };

describe("read-only skills methods", () => {
  let f: SkillsFixture;
  beforeAll(() => { f = skillsFixture(); });
  afterAll(() => { f.close(); });

  it("search, route, resolve, inspect, read, diagnose answer envelopes with provenance", async () => {
    const s = ok(await f.service.call("skills_search", { query: "no space left on device" }, A));
    expect(s.kind).toBe("skills.search");
    expect((s.data.results as { name: string }[])[0]!.name).toBe("disk-full");
    expect(s.untrusted).toBe(true);
    expect(s.provenance[0]).toMatchObject({ source: "local" });
    expect(s.provenance[0]!.digest).toMatch(/^sha256:/);
    const r = ok(await f.service.call("skills_route", { intent: "oom killer took out java" }, A));
    expect(r.data).toMatchObject({ skill: "memory-pressure" });
    expect(r.data.why).toMatch(/matched/);
    const res = ok(await f.service.call("skills_resolve", { ref: "disk-full" }, A));
    expect(res.data).toMatchObject({ source: "local", version: "1.0.0" });
    expect(res.data.pinned_ref).toMatch(/^disk-full@sha256:/);
    const i = ok(await f.service.call("skills_inspect", { ref: "disk-full@1.0.0" }, A));
    expect(i.data).toMatchObject({ valid: true, entrypoints: [{ name: "diagnose", mcp_exec: true, granted: false }] });
    const rd = ok(await f.service.call("skills_read", { ref: "disk-full", path: "scripts/diagnose.sh" }, A));
    expect(rd.data.content).toMatch(/^#!\/bin\/bash/);
    expect(rd.provenance[0]).toMatchObject({ path: "scripts/diagnose.sh" });
    const dg = ok(await f.service.call("skills_diagnose", {}, A));
    expect(dg.data).toMatchObject({ offered: 7, invalid: [], registry: { configured: false, status: "source_disabled" } });
  });

  it("bad input gets a clear error code, never a crash", async () => {
    expect(code(await f.service.call("skills_read", { ref: "disk-full", path: "../../etc/passwd" }, A))).toBe("invalid_params");
    expect(code(await f.service.call("skills_read", { ref: "disk-full", path: "nope.md" }, A))).toBe("not_found");
    expect(code(await f.service.call("skills_resolve", { ref: "Bad Name" }, A))).toBe("invalid_params");
    expect(code(await f.service.call("skills_resolve", { ref: "x".repeat(513) }, A))).toBe("invalid_params");
    expect(code(await f.service.call("skills_search", { query: "q".repeat(1025) }, A))).toBe("invalid_params");
    expect(code(await f.service.call("skills_search", { query: "x", extra: 1 }, A))).toBe("invalid_params");
    expect(code(await f.service.call("skills_search", { query: "a\u0000b" }, A))).toBe("invalid_params");
    expect(code(await f.service.call("skills_search", { query: "x".repeat(70_000) }, A))).toBe("arguments_too_large");
    expect(code(await f.service.call("skills_resolve", { ref: "disk-full@2.0.0" }, A))).toBe("source_disabled");
    expect(code(await f.service.call("skills_resolve", { ref: "nope" }, A))).toBe("not_found");
  });

  it("an invalid local skill is reported with its problems, not offered", async () => {
    mkdirSync(join(f.root, "Broken"));
    writeFileSync(join(f.root, "Broken", "SKILL.md"), "---\nname: broken\nextra: 1\n---\n");
    const dg = ok(await f.service.call("skills_diagnose", {}, A));
    const invalid = dg.data.invalid as { name: string; problems: { code: string }[] }[];
    expect(invalid.map((s) => [s.name, s.problems.map((p) => p.code)])).toEqual([["Broken", ["field_unknown", "name_mismatch", "description_missing"]]]);
  });
});

describe("confirm-token matrix (install and sync)", () => {
  let f: SkillsFixture;
  beforeAll(() => { f = skillsFixture(); });
  afterAll(() => { f.close(); });
  const args = { ref: "disk-full", scope: "user", runtimes: ["claude", "codex"], session: "conn-1" };
  const plan = async (a: Record<string, unknown> = args, who = A): Promise<Ok> => ok(await f.service.call("skills_install_plan", a, who));
  const targets = (): string[] => [join(f.home, ".agents/skills/disk-full"), join(f.home, ".claude/skills/disk-full")];

  it("missing token: confirm.missing, nothing written", async () => {
    await plan();
    expect(code(await f.service.call("skills_install_apply", args, A))).toBe("confirm.missing");
    expect(targets().some(existsSync)).toBe(false);
  });

  it("other session, other caller, other arguments: refused and spent", async () => {
    const p1 = await plan();
    expect(code(await f.service.call("skills_install_apply", { ...args, session: "conn-2", confirm: p1.confirm!.token }, A))).toBe("confirm.other_session");
    const p2 = await plan();
    expect(code(await f.service.call("skills_install_apply", { ...args, confirm: p2.confirm!.token }, B))).toBe("confirm.other_session");
    const p3 = await plan();
    expect(code(await f.service.call("skills_install_apply", { ...args, runtimes: ["claude"], confirm: p3.confirm!.token }, A))).toBe("confirm.arguments_changed");
    expect(code(await f.service.call("skills_install_apply", { ...args, confirm: p3.confirm!.token }, A))).toBe("confirm.used");
    expect(targets().some(existsSync)).toBe(false);
  });

  it("expired after 5 minutes", async () => {
    const p = await plan();
    f.clock.advance(CONFIRM_TTL_MS + 1);
    expect(code(await f.service.call("skills_install_apply", { ...args, confirm: p.confirm!.token }, A))).toBe("confirm.expired");
  });

  it("plan changed on disk between plan and apply: confirm.plan_changed, nothing written", async () => {
    const p = await plan();
    appendFileSync(join(f.root, "disk-full", "SKILL.md"), "\nEdited after the plan.\n");
    expect(code(await f.service.call("skills_install_apply", { ...args, confirm: p.confirm!.token }, A))).toBe("confirm.plan_changed");
    expect(targets().some(existsSync)).toBe(false);
    // A target that appears after the plan changes it too.
    const p2 = await plan();
    mkdirSync(join(f.home, ".claude/skills/disk-full"), { recursive: true });
    expect(code(await f.service.call("skills_install_apply", { ...args, confirm: p2.confirm!.token }, A))).toBe("confirm.plan_changed");
    expect(readdirSync(join(f.home, ".claude/skills/disk-full"))).toEqual([]);
  });

  it("the right token applies once: both folders, the lock, audit entries; a second use is refused", async () => {
    // The folder made by hand in the previous test is not hostgate's: blocked, never replaced (T3-27).
    const blocked = (await plan()).data.plan as { blocked: number; skills: { targets: { action: string; reason?: string }[] }[] };
    expect(blocked.blocked).toBe(1);
    expect(blocked.skills[0]!.targets[1]!.reason).toMatch(/not installed by hostgate/);
    rmSync(join(f.home, ".claude/skills/disk-full"), { recursive: true });
    const p = await plan();
    expect(p.data.plan).toMatchObject({ writes: 3, blocked: 0 });
    const applied = ok(await f.service.call("skills_install_apply", { ...args, confirm: p.confirm!.token }, A));
    expect(applied.data.written).toEqual(targets());
    for (const t of targets()) expect(readFileSync(join(t, "SKILL.md"), "utf8")).toMatch(/Edited after the plan/);
    const lock = JSON.parse(readFileSync(join(f.home, ".agents", "skills-lock.json"), "utf8")) as { skills: Record<string, { digest: string }> };
    expect(lock.skills["disk-full"]!.digest).toBe(applied.data.digest);
    expect(code(await f.service.call("skills_install_apply", { ...args, confirm: p.confirm!.token }, A))).toBe("confirm.used");
    const kinds = f.audit.query({}).map((e) => e.kind);
    expect(kinds).toEqual(expect.arrayContaining(["skills.install.intent", "skills.install", "skills.install.refused"]));
    // A re-plan now writes nothing.
    expect((await plan()).data.plan).toMatchObject({ writes: 0 });
  });

  it("sync --locked restores what the lock pins; its token follows the same rules", async () => {
    const sargs = { scope: "user", runtimes: ["claude", "codex"], session: "conn-1" };
    rmSync(join(f.home, ".claude/skills/disk-full"), { recursive: true });
    const p = ok(await f.service.call("skills_sync_plan", sargs, A));
    expect((p.data.plan as { skills: { targets: { action: string }[] }[] }).skills[0]!.targets.map((t) => t.action)).toEqual(["unchanged", "create"]);
    expect(code(await f.service.call("skills_sync_apply", sargs, A))).toBe("confirm.missing");
    const p2 = ok(await f.service.call("skills_sync_plan", sargs, A));
    ok(await f.service.call("skills_sync_apply", { ...sargs, confirm: p2.confirm!.token }, A));
    expect(existsSync(join(f.home, ".claude/skills/disk-full/SKILL.md"))).toBe(true);
    expect(code(await f.service.call("skills_sync_apply", { ...sargs, confirm: p2.confirm!.token }, A))).toBe("confirm.used");
  });

  it("apply is refused when the install gate is off (plans still work)", async () => {
    const off = skillsFixture({ install: false });
    try {
      const p = ok(await off.service.call("skills_install_plan", args, A));
      expect(code(await off.service.call("skills_install_apply", { ...args, confirm: p.confirm!.token }, A))).toBe("forbidden_method");
    } finally { off.close(); }
  });
});

describe("exec matrix", () => {
  let f: SkillsFixture;
  let ref: string;
  beforeAll(async () => {
    f = skillsFixture();
    ref = ok(await f.service.call("skills_resolve", { ref: "exec-test" }, A)).data.pinned_ref as string;
  });
  afterAll(() => { f.close(); });
  const run = (entrypoint: string, extra: Record<string, unknown> = {}, signal?: AbortSignal) => f.service.call("skills_execute", { ref, entrypoint, ...extra }, A, signal);
  const grant = async (entrypoint: string) => ok(await f.service.admin("skills_grants_add", { ref, entrypoint }, "admin:root"));

  it("needs a digest-pinned ref, an opted-in entrypoint and an admin grant", async () => {
    expect(code(await f.service.call("skills_execute", { ref: "exec-test", entrypoint: "ok" }, A))).toBe("exec_refused");
    expect(code(await run("ok"))).toBe("exec_refused");
    expect(code(await run("hidden"))).toBe("exec_refused");
    expect(code(await f.service.admin("skills_grants_add", { ref, entrypoint: "hidden" }, "admin:root"))).toBe("exec_refused");
    await grant("ok");
    const r = ok(await run("ok", { args: ["a b", "--x"] }));
    expect(r.data).toMatchObject({ exit_code: 0, origin: "mcp", timed_out: false, truncated: { stdout: false, stderr: false } });
    expect(r.data.stdout).toMatch(/args: a b --x/);
    // No inherited environment (SECRET_TOKEN of the daemon does not leak), HOME is a private empty dir.
    expect(r.data.stdout).not.toMatch(/SECRET_TOKEN/);
    expect(r.untrusted).toBe(true);
    const kinds = f.audit.query({}).map((e) => e.kind);
    expect(kinds).toEqual(expect.arrayContaining(["skills.grant.add", "skills.exec.refused", "skills.exec.intent", "skills.exec"]));
  });

  it("a secret-declaring entrypoint is refused, granted or not", async () => {
    expect(code(await f.service.admin("skills_grants_add", { ref, entrypoint: "secretive" }, "admin:root"))).toBe("exec_refused");
    expect(code(await run("secretive"))).toBe("exec_refused");
  });

  it("dryRun checks everything and runs nothing", async () => {
    const r = ok(await run("ok", { dryRun: true }));
    expect(r.data).toMatchObject({ dry_run: true, granted: true });
    expect(["allow", "require_approval"]).toContain((r.data.risk as { decision: string }).decision);
    expect(r.data).not.toHaveProperty("exit_code");
  });

  it("a script reading a planted secret gets it redacted", async () => {
    await grant("cat");
    const planted = join(f.dir, "planted.env");
    writeFileSync(planted, "DB_PASSWORD=hunter2hunter2\naws_key AKIAABCDEFGHIJKLMNOP\n");
    const r = ok(await run("cat", { args: [planted] }));
    expect(r.data.stdout).not.toMatch(/hunter2|AKIAABCDEFGHIJKLMNOP/);
    expect(r.data.stdout).toMatch(/\[redacted:/);
    expect(r.data.redactions).toBeGreaterThanOrEqual(2);
  });

  it("output is capped at 128 KiB per stream", async () => {
    await grant("loud");
    const r = ok(await run("loud"));
    expect(Buffer.byteLength(r.data.stdout as string)).toBe(128 * 1024);
    expect(Buffer.byteLength(r.data.stderr as string)).toBe(128 * 1024);
    expect(r.data.truncated).toEqual({ stdout: true, stderr: true });
  });

  it("timeout kills the whole process group", async () => {
    await grant("sleeper");
    const mark = marker();
    const r = ok(await run("sleeper", { timeoutSeconds: 1, args: [mark] }));
    expect(r.data).toMatchObject({ timed_out: true });
    expect(r.data.stdout).toMatch(/child=\d+/);
    expect(sleeping(mark)).toEqual([]);
  });

  it("busy while a run is going; cancel kills the children", async () => {
    const ac = new AbortController();
    const mark = marker();
    const first = run("sleeper", { timeoutSeconds: 60, args: [mark] }, ac.signal);
    await new Promise((r) => setTimeout(r, 300));
    expect(code(await run("ok"))).toBe("exec_busy");
    ac.abort();
    const r = ok(await first);
    expect(r.data).toMatchObject({ cancelled: true, timed_out: false });
    expect(sleeping(mark)).toEqual([]);
    expect(code(await run("ok"))).toBe("ok");
  });

  it("exec is refused when the gate is off", async () => {
    const off = skillsFixture({ exec: false, shipped: false });
    try {
      expect(code(await off.service.call("skills_execute", { ref, entrypoint: "ok" }, A))).toBe("forbidden_method");
    } finally { off.close(); }
  });
});

let marks = 0;
/** A sleep duration no other process here uses, to find the script's child in /proc. */
const marker = (): string => `${5000 + (process.pid % 1000)}.${++marks}`;

/** Live (non-zombie) processes whose command line is `sleep <mark>`. */
function sleeping(mark: string): number[] {
  const out: number[] = [];
  for (const p of readdirSync("/proc")) {
    if (!/^\d+$/.test(p)) continue;
    try {
      if (readFileSync(`/proc/${p}/cmdline`, "utf8") !== `sleep\0${mark}\0`) continue;
      if (!/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${p}/stat`, "utf8"))) out.push(Number(p));
    } catch { /* gone */ }
  }
  return out;
}
