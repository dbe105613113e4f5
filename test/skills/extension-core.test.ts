import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { sha256 } from "../../src/adapters/skills-fs.ts";
import { grantGap } from "../../src/app/skills/exec.ts";
import type { ExecGrant } from "../../src/ports/skill-store.ts";
import { describeDiff, diffDigestSets, directoryChildren, extLimitProblem, fileDigests, parseSkillUri, sameDigestSet, skillEntry, skillFileMime, skillFileUri, SKILL_EXT_LIMITS, type FileDigest } from "../../src/core/skills/entry.ts";
import { parseSkillMd } from "../../src/core/skills/manifest.ts";

const enc = new TextEncoder();
const file = (path: string, text: string) => ({ path, bytes: enc.encode(text) });
const hex = (text: string): `sha256:${string}` => `sha256:${createHash("sha256").update(text).digest("hex")}`;

describe("SEP-2640 entries: digests, URIs, directories (core/skills/entry.ts)", () => {
  it("fileDigests: SHA-256 of each file's raw bytes and its byte size, in UTF-8 path order", () => {
    const set = fileDigests([file("b.md", "bé"), file("SKILL.md", "x"), file("a/z.sh", "")], sha256);
    expect(set).toEqual([
      { path: "SKILL.md", digest: hex("x"), size: 1 },
      { path: "a/z.sh", digest: hex(""), size: 0 },
      { path: "b.md", digest: hex("bé"), size: 3 },
    ]);
  });

  it("diffDigestSets names every change; an equal set is the same set", () => {
    const before = fileDigests([file("SKILL.md", "x"), file("s.sh", "1"), file("gone.md", "g")], sha256);
    const after = fileDigests([file("SKILL.md", "x"), file("s.sh", "2"), file("new.md", "n")], sha256);
    const d = diffDigestSets(before, after);
    expect(d).toEqual({ added: ["new.md"], removed: ["gone.md"], changed: ["s.sh"] });
    expect(sameDigestSet(d)).toBe(false);
    expect(describeDiff(d)).toBe("s.sh changed, new.md added, gone.md removed");
    expect(sameDigestSet(diffDigestSets(before, [...before]))).toBe(true);
    expect(describeDiff({ added: ["a", "b", "c"], removed: [], changed: ["d", "e", "f"] }, 2)).toBe("d changed, e changed and 4 more");
  });

  it("skillFileUri percent-encodes path segments; parseSkillUri reads it back", () => {
    expect(skillFileUri("pdf", "templates/my form #1.md")).toBe("skill://pdf/templates/my%20form%20%231.md");
    expect(parseSkillUri("skill://pdf/templates/my%20form%20%231.md")).toEqual({ name: "pdf", path: "templates/my form #1.md" });
    expect(parseSkillUri("skill://pdf")).toEqual({ name: "pdf", path: "" });
    expect(skillFileUri("pdf", "")).toBe("skill://pdf");
  });

  it("parseSkillUri refuses each bad URI with a sentence saying what is wrong", () => {
    const cases: [string, RegExp][] = [
      ["file:///etc/passwd", /is not a skill:\/\/ URI/],
      ["skill://", /does not start with a skill name/],
      ["skill://Bad_Name/SKILL.md", /does not start with a skill name/],
      [`skill://${"a".repeat(65)}/SKILL.md`, /does not start with a skill name/],
      ["skill://pdf/../etc/passwd", /path traversal/],
      ["skill://pdf/%2e%2e/etc/passwd", /path traversal/],
      ["skill://pdf/a%2Fb", /encodes a "\/" inside a path segment/],
      ["skill://pdf/%E0%A4%A", /malformed percent-encoding/],
      ["skill://pdf/templates/", /empty path component.*no trailing slash/],
      ["skill://pdf/a//b", /empty path component/],
      ["skill://pdf/a%00b", /control character/],
    ];
    for (const [uri, why] of cases) {
      const r = parseSkillUri(uri);
      expect("error" in r ? r.error : "accepted", uri).toMatch(why);
    }
  });

  it("directoryChildren: direct children only, directories once, sorted; a file or a missing folder is not a directory", () => {
    const paths = ["SKILL.md", "references/a.md", "references/deep/b.md", "scripts/x.sh"];
    expect(directoryChildren(paths, "")).toEqual([
      { name: "SKILL.md", path: "SKILL.md", kind: "file" },
      { name: "references", path: "references", kind: "directory" },
      { name: "scripts", path: "scripts", kind: "directory" },
    ]);
    expect(directoryChildren(paths, "references")).toEqual([
      { name: "a.md", path: "references/a.md", kind: "file" },
      { name: "deep", path: "references/deep", kind: "directory" },
    ]);
    expect(directoryChildren(paths, "SKILL.md")).toBeNull();
    expect(directoryChildren(paths, "nothing")).toBeNull();
    expect(directoryChildren(paths, "refer")).toBeNull();
  });

  it("extLimitProblem: the extension's 512 files and 16 MiB, inclusive", () => {
    const many = (n: number, size: number): FileDigest[] => Array.from({ length: n }, (_, i) => ({ path: `f${i}`, digest: hex(""), size }));
    expect(extLimitProblem(many(512, 0))).toBeNull();
    expect(extLimitProblem(many(513, 0))).toMatch(/513 files; the Skills extension serves at most 512/);
    expect(extLimitProblem(many(1, SKILL_EXT_LIMITS.bytes))).toBeNull();
    expect(extLimitProblem(many(2, SKILL_EXT_LIMITS.bytes / 2 + 1))).toMatch(/16777218 bytes; the Skills extension serves at most 16777216/);
  });

  it("skillEntry: the SKILL.md URI, the front matter verbatim as parsed, every file's URI, digest and size", () => {
    const md = "---\nname: pdf\ndescription: PDFs.\nmetadata:\n  version: \"2\"\n---\nBody\n";
    const parsed = parseSkillMd(md, "pdf");
    expect(parsed.frontmatter).toEqual({ name: "pdf", description: "PDFs.", metadata: { version: "2" } });
    const set = fileDigests([file("SKILL.md", md), file("t/a b.md", "t")], sha256);
    expect(skillEntry("pdf", parsed.frontmatter!, set, { k: 1 })).toEqual({
      uri: "skill://pdf/SKILL.md",
      frontmatter: { name: "pdf", description: "PDFs.", metadata: { version: "2" } },
      resources: [{ uri: "skill://pdf/SKILL.md", digest: hex(md), size: md.length }, { uri: "skill://pdf/t/a%20b.md", digest: hex("t"), size: 1 }],
      _meta: { k: 1 },
    });
    // An invalid SKILL.md has no front matter to publish.
    expect(parseSkillMd("---\nname: other\ndescription: x\n---\n", "pdf").frontmatter).toBeUndefined();
  });

  it("skillFileMime by extension, and bytes for what is not text", () => {
    expect(skillFileMime("SKILL.md", true)).toBe("text/markdown");
    expect(skillFileMime("agents/hostgate.yaml", true)).toBe("application/yaml");
    expect(skillFileMime("scripts/x.sh", true)).toBe("text/x-shellscript");
    expect(skillFileMime("LICENSE", true)).toBe("text/plain");
    expect(skillFileMime("logo.png", false)).toBe("application/octet-stream");
  });
});

describe("grantGap: a grant covers exactly the digest set it was given for", () => {
  const v1 = fileDigests([file("SKILL.md", "x"), file("scripts/run.sh", "echo 1")], sha256);
  const v2 = fileDigests([file("SKILL.md", "x"), file("scripts/run.sh", "echo planted")], sha256);
  const grant = (digest: string, files?: FileDigest[], at = "2026-01-01T00:00:00Z"): ExecGrant => ({ name: "k", digest: digest as ExecGrant["digest"], entrypoint: "run", granted_by: "root", granted_at: at, ...(files ? { files } : {}) });

  it("covered: same tree digest and same set; an older grant without a recorded set is bound by its tree digest alone", () => {
    expect(grantGap([grant("sha256:1", v1)], "k", "sha256:1", "run", v1)).toBeNull();
    expect(grantGap([grant("sha256:1")], "k", "sha256:1", "run", v1)).toBeNull();
  });

  it("not covered: another entrypoint, another skill, or no grant at all", () => {
    expect(grantGap([grant("sha256:1", v1)], "k", "sha256:1", "other", v1)).toBe("The grant gate refused: k@sha256:1 entrypoint other is not granted.");
    expect(grantGap([grant("sha256:1", v1)], "j", "sha256:1", "run", v1)).toMatch(/j@sha256:1 entrypoint run is not granted/);
  });

  it("a planted edit: the latest grant of that entrypoint is named, with the files that changed since", () => {
    const gap = grantGap([grant("sha256:0", v1, "2025-01-01T00:00:00Z"), grant("sha256:1", v1)], "k", "sha256:2", "run", v2);
    expect(gap).toBe("The grant gate refused: k entrypoint run was granted for sha256:1, and the skill's files changed since (scripts/run.sh changed); a changed skill needs a new grant.");
    // The same tree digest but a recorded set that differs (a forged grants file) is not covered either.
    expect(grantGap([grant("sha256:1", v2)], "k", "sha256:1", "run", v1)).toMatch(/changed since \(scripts\/run\.sh changed\)/);
  });
});
