import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, chmodSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { localSkillSource } from "../../src/adapters/skills-fs.ts";
import { SkillIndex, routeIntent } from "../../src/core/skills/search.ts";
import { isValid } from "../../src/core/skills/skill.ts";
import type { LocalScan } from "../../src/ports/skill-store.ts";

const ROOT = resolve(import.meta.dirname, "../../skills");
const EXPECTED = ["certificate-expiry", "disk-full", "failed-boot-unit", "memory-pressure", "runaway-log-growth", "service-flapping"];
let scan: LocalScan;
beforeAll(async () => { scan = await localSkillSource([ROOT]).scan(); });

describe("shipped skills", () => {
  it("are the six runbooks, each valid by our validator, with a read-only diagnose entrypoint", () => {
    expect(scan.skills.map((s) => s.skill.name)).toEqual(EXPECTED);
    for (const { skill } of scan.skills) {
      expect(skill.problems, skill.name).toEqual([]);
      expect(isValid(skill)).toBe(true);
      const diagnose = skill.side.entrypoints.find((e) => e.name === "diagnose");
      expect(diagnose, skill.name).toMatchObject({ interpreter: "bash", run: "scripts/diagnose.sh", mcp_exec: true, secrets: [] });
      expect(skill.body.length).toBeGreaterThan(1500);
    }
  });

  it("scripts parse (bash -n) and reject bad arguments with exit 2", () => {
    for (const name of EXPECTED) {
      const script = join(ROOT, name, "scripts/diagnose.sh");
      execFileSync("bash", ["-n", script]);
      const r = spawnSync("bash", [script, "--no-such-option"], { encoding: "utf8", timeout: 20_000 });
      expect(r.status, name).toBe(2);
      expect(r.stderr, name).toMatch(/diagnose\.sh: /);
    }
  });

  describe("scripts run to completion as an unprivileged user (Debian 12, no root-only assumptions)", () => {
    let copy: string;
    beforeAll(() => {
      copy = mkdtempSync(join(tmpdir(), `skills-shipped-${process.pid}-`));
      cpSync(ROOT, join(copy, "skills"), { recursive: true });
      chmodSync(copy, 0o755);
      execFileSync("chmod", ["-R", "a+rX", copy]);
    });
    afterAll(() => { rmSync(copy, { recursive: true, force: true }); });
    const asNobody = process.getuid?.() === 0;
    const args: Record<string, string[]> = { "runaway-log-growth": ["--interval", "1"], "service-flapping": ["ssh"], "certificate-expiry": ["--days", "30"] };
    for (const name of EXPECTED) {
      it(name, () => {
        const script = join(copy, "skills", name, "scripts/diagnose.sh");
        // disk-full scans the mount it is given: a small one here, so the du pass stays short.
        const extra = name === "disk-full" ? [copy, "--top", "5"] : (args[name] ?? []);
        const argv = asNobody ? ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "bash", script, ...extra] : ["bash", script, ...extra];
        const r = spawnSync(argv[0]!, argv.slice(1), { encoding: "utf8", timeout: 170_000, cwd: "/" });
        expect(r.status, `${name}: ${r.stderr}`).toBe(0);
        expect(r.stdout.length).toBeGreaterThan(20);
        // Never a private key in a report.
        expect(r.stdout).not.toMatch(/BEGIN [A-Z ]*PRIVATE KEY/);
      }, 180_000);
    }
  });
});

describe("skills_route eval (30 phrasings, evals/skills-route.json)", () => {
  it("routes phrasings to the right runbook, including ones sharing no word with its name", () => {
    const { cases } = JSON.parse(readFileSync(resolve(import.meta.dirname, "../../evals/skills-route.json"), "utf8")) as { cases: { intent: string; skill: string; no_shared_word?: boolean }[] };
    expect(cases).toHaveLength(30);
    const index = new SkillIndex(scan.skills.filter((s) => isValid(s.skill)).map((s) => ({ name: s.skill.name, description: s.skill.manifest!.description, body: s.skill.body })));
    const words = (t: string): string[] => t.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);
    let hits = 0, noShare = 0, noShareHits = 0;
    const misses: string[] = [];
    for (const c of cases) {
      if (c.no_shared_word) {
        noShare++;
        const nameWords = new Set(words(c.skill));
        expect(words(c.intent).filter((w) => nameWords.has(w)), c.intent).toEqual([]);
      }
      const r = routeIntent(index, c.intent);
      if (r.skill === c.skill) { hits++; if (c.no_shared_word) noShareHits++; } else misses.push(`${c.intent} → ${r.skill ?? "none"} (want ${c.skill})`);
    }
    console.log(JSON.stringify({ eval: "skills_route", total: cases.length, hits, hit_rate: hits / cases.length, no_shared_word: noShare, no_shared_word_hits: noShareHits, misses }));
    expect(noShare).toBeGreaterThanOrEqual(10);
    expect(hits / cases.length).toBeGreaterThanOrEqual(0.9);
    expect(noShareHits / noShare).toBeGreaterThanOrEqual(0.8);
  });
});
