import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SkillsEnvelope } from "../../src/ipc/skills.ts";
import { skillsFixture, type SkillsFixture } from "../helpers/skills-service.ts";

/**
 * skills_read, skills_inspect and skills_diagnose never hand out a host file (issue 21; corpus cases T3-24
 * and T3-25): a real symlink in a local skills root, traversal paths and names, through the service.
 */

const A = { actor: "test:alice", uid: 1000, client: "vitest" };
const code = (e: SkillsEnvelope): string => (e.ok ? "ok" : e.error.code);
const passwd = readFileSync("/etc/passwd", "utf8");
/** The first line of /etc/passwd (root's entry): no answer may contain it. */
const rootLine = passwd.split("\n")[0]!;

describe("T3-24 and T3-25: no byte of a host file through the read tools", () => {
  let f: SkillsFixture;
  beforeAll(() => {
    f = skillsFixture();
    const dir = join(f.root, "linkref");
    mkdirSync(join(dir, "references"), { recursive: true });
    writeFileSync(join(dir, "SKILL.md"), "---\nname: linkref\ndescription: A skill whose reference is a symlink to /etc/passwd.\n---\n# linkref\n");
    symlinkSync("/etc/passwd", join(dir, "references", "passwd.md"));
  });
  afterAll(() => { f.close(); });

  it("T3-24: a symlinked reference makes the skill refused: read, inspect and diagnose return nothing of the target", async () => {
    const answers = [
      await f.service.call("skills_read", { ref: "linkref", path: "references/passwd.md" }, A),
      await f.service.call("skills_inspect", { ref: "linkref" }, A),
    ];
    expect(answers.map(code)).toEqual(["invalid_skill", "invalid_skill"]);
    const dg = await f.service.call("skills_diagnose", {}, A);
    expect(dg.ok).toBe(true);
    const invalid = (dg as Extract<SkillsEnvelope, { ok: true }>).data.invalid as { name: string; problems: { code: string; file: string }[] }[];
    expect(invalid.find((s) => s.name === "linkref")?.problems).toEqual([expect.objectContaining({ code: "tree_refused", file: "references/passwd.md" })]);
    for (const a of [...answers, dg]) expect(JSON.stringify(a)).not.toContain(rootLine);
    // Not offered anywhere either.
    const search = await f.service.call("skills_search", { query: "symlink passwd linkref" }, A);
    expect(JSON.stringify(search)).not.toMatch(/"name":"linkref"/);
  });

  it("T3-25: absolute, dot-dot, inner dot-dot and percent-encoded paths, and a traversal ref, are all refused", async () => {
    const paths = ["/etc/passwd", "../../../../../../etc/passwd", "scripts/../../../../../../etc/passwd", "%2e%2e/%2e%2e/%2e%2e/etc/passwd"];
    const answers: SkillsEnvelope[] = [];
    for (const path of paths) answers.push(await f.service.call("skills_read", { ref: "disk-full", path }, A));
    answers.push(await f.service.call("skills_read", { ref: "../../../../etc", path: "passwd" }, A));
    expect(answers.map(code)).toEqual(["invalid_params", "invalid_params", "invalid_params", "not_found", "invalid_params"]);
    for (const a of answers) expect(JSON.stringify(a)).not.toContain(rootLine);
    // The percent-encoded form is a file name, looked up in the skill's own tree only.
    expect((answers[3] as Extract<SkillsEnvelope, { ok: false }>).error.message).toMatch(/disk-full has no file %2e%2e/);
  });
});
