import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { toolNameOf } from "../../src/core/catalogue/action.ts";
import { CATALOGUE } from "../../src/core/catalogue/index.ts";

/**
 * Issue 22: the shipped runbooks recommend remedies that can be made. Every PascalCase action a runbook names in
 * backticks is in the catalogue (a renamed or missing action fails here), and the disk-full runbook names the
 * disk-space actions and the largest-directories tool.
 */
const SKILLS = resolve(import.meta.dirname, "../../skills");
const names = new Set(CATALOGUE.map((a) => a.name));
const tools = new Set(CATALOGUE.filter((a) => a.access === "read_only").map((a) => toolNameOf(a.name)));
const runbook = (skill: string): string => readFileSync(join(SKILLS, skill, "SKILL.md"), "utf8");

describe("shipped runbooks name real actions", () => {
  it.each(readdirSync(SKILLS))("%s: every `ActionName` it names exists in the catalogue", (skill) => {
    // Action names start with a verb (systemd properties such as `ExecMainCode` or /proc fields such as `MemAvailable` do not).
    const named = [...runbook(skill).matchAll(/`((?:Get|List|Read|Search|Install|Remove|Update|Signal|Write|Start|Stop|Restart|Reload|Enable|Disable|Run|Clean|Vacuum|Delete|Truncate)(?:[A-Z][a-z]+)+)`/g)].map((m) => m[1]!);
    for (const n of named) expect(names, `${skill} names ${n}`).toContain(n);
  });

  it("disk-full names the four remedies and get_largest_directories", () => {
    const text = runbook("disk-full");
    for (const a of ["VacuumJournal", "CleanPackageCache", "DeleteLogFile", "TruncateLogFile"]) expect(text).toContain(`\`${a}\``);
    expect(tools).toContain("get_largest_directories");
    expect(text).toContain("`get_largest_directories`");
  });
});
