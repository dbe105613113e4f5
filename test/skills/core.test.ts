import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { HostgateError } from "../../src/core/errors.ts";
import { ConfirmBook, CONFIRM_TTL_MS, sessionBinding } from "../../src/core/skills/confirm.ts";
import { treeDigest, type Sha256 } from "../../src/core/skills/digest.ts";
import { formatLock, parseLock } from "../../src/core/skills/lock.ts";
import { parseSkillMd } from "../../src/core/skills/manifest.ts";
import { parseRef } from "../../src/core/skills/ref.ts";
import { SkillIndex, routeIntent, stem } from "../../src/core/skills/search.ts";
import { loadSkill } from "../../src/core/skills/skill.ts";
import { installFolders } from "../../src/core/skills/targets.ts";
import { checkTreePath } from "../../src/core/skills/tree.ts";

const sha = (): Sha256 => {
  const h = createHash("sha256");
  return { update: (b) => { h.update(b); }, digestHex: () => h.digest("hex") };
};
const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const md = (fm: string, body = "# Body\n"): string => `---\n${fm}\n---\n${body}`;
const codes = (fm: string, dir = "disk-full"): string[] => parseSkillMd(md(fm), dir).problems.map((p) => p.code);

describe("SKILL.md front matter (Agent Skills specification)", () => {
  it("accepts a minimal and a full manifest", () => {
    expect(parseSkillMd(md("name: disk-full\ndescription: Free a full disk."), "disk-full").problems).toEqual([]);
    const full = parseSkillMd(md('name: disk-full\ndescription: d\nlicense: MIT\ncompatibility: Linux\nmetadata:\n  version: "1"\nallowed-tools: Bash Read'), "disk-full");
    expect(full.problems).toEqual([]);
    expect(full.manifest).toMatchObject({ license: "MIT", compatibility: "Linux", metadata: { version: "1" }, allowed_tools: ["Bash", "Read"] });
    expect(full.body).toBe("# Body\n");
  });

  it("reports one problem per fault, naming the field", () => {
    expect(codes("description: d")).toEqual(["name_missing"]);
    expect(codes("name: disk-full")).toEqual(["description_missing"]);
    expect(codes('name: disk-full\ndescription: "  "')).toEqual(["description_empty"]);
    expect(codes(`name: disk-full\ndescription: ${"x".repeat(1025)}`)).toEqual(["description_too_long"]);
    expect(codes(`name: ${"a".repeat(65)}\ndescription: d`, "a".repeat(65))).toEqual(["name_too_long"]);
    for (const bad of ["Disk-full", "-disk", "disk-", "disk--full", "disk_full", "dísk"]) expect(codes(`name: "${bad}"\ndescription: d`, bad)).toContain("name_invalid");
    expect(codes("name: other\ndescription: d")).toEqual(["name_mismatch"]);
    expect(codes(`name: disk-full\ndescription: d\ncompatibility: ${"c".repeat(501)}`)).toEqual(["compatibility_length"]);
    expect(codes("name: disk-full\ndescription: d\nmetadata:\n  version: 1")).toEqual(["metadata_value_not_string"]);
    expect(codes("name: disk-full\ndescription: d\nmetadata: [a]")).toEqual(["metadata_not_mapping"]);
    expect(codes("name: disk-full\ndescription: d\nexec: yes")).toEqual(["field_unknown"]);
    expect(codes("name: 5\ndescription: [d]")).toEqual(["name_not_string", "description_not_string"]);
    // Several faults at once: all of them.
    expect(codes("name: Bad\nextra: 1")).toEqual(["field_unknown", "name_invalid", "description_missing"]);
  });

  it("refuses missing or broken front matter and YAML aliases", () => {
    expect(parseSkillMd("# no front matter", "x").problems[0]!.code).toBe("front_matter_missing");
    expect(parseSkillMd("---\nname: x\n", "x").problems[0]!.code).toBe("front_matter_unclosed");
    expect(parseSkillMd("\ufeff---\nname: x\n---\n", "x").problems[0]!.code).toBe("front_matter_bom");
    expect(parseSkillMd(md("- a\n- b"), "x").problems[0]!.code).toBe("front_matter_not_mapping");
    expect(parseSkillMd(md("name: x\nname: y\ndescription: d"), "x").problems[0]!.code).toBe("front_matter_yaml");
    expect(parseSkillMd(md("a: &a [1]\nname: x\ndescription: *a"), "x").problems[0]!.code).toBe("front_matter_yaml");
  });
});

describe("skill tree, side file and digest", () => {
  const good = [
    { path: "SKILL.md", bytes: enc(md("name: s1\ndescription: d")) },
    { path: "scripts/run.sh", bytes: enc("echo hi\n") },
    { path: "agents/hostgate.yaml", bytes: enc("entrypoints:\n  run:\n    run: scripts/run.sh\n    interpreter: bash\n    description: says hi\ncapabilities:\n  mcp:\n    exec: [run]\n") },
  ];

  it("loads a valid skill with its entrypoints", () => {
    const s = loadSkill("s1", good, sha);
    expect(s.problems).toEqual([]);
    expect(s.side.entrypoints).toEqual([{ name: "run", run: "scripts/run.sh", interpreter: "bash", description: "says hi", secrets: [], timeout_seconds: undefined, mcp_exec: true }]);
    expect(s.files.map((f) => f.path)).toEqual(["SKILL.md", "agents/hostgate.yaml", "scripts/run.sh"]);
  });

  it("digest: order-independent, content- and path-sensitive, length-prefixed", () => {
    const d = treeDigest(good, sha);
    expect(d).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(treeDigest([...good].reverse(), sha)).toBe(d);
    expect(treeDigest([{ ...good[0]!, bytes: enc("x") }, ...good.slice(1)], sha)).not.toBe(d);
    // Moving a byte between a path and its content changes the digest (length prefixes).
    expect(treeDigest([{ path: "ab", bytes: enc("c") }], sha)).not.toBe(treeDigest([{ path: "a", bytes: enc("bc") }], sha));
    // Known vector: one empty file "a".
    const h = createHash("sha256");
    h.update(Buffer.from([0, 0, 0, 0, 0, 0, 0, 1])); h.update("a"); h.update(Buffer.alloc(8));
    expect(treeDigest([{ path: "a", bytes: new Uint8Array() }], sha)).toBe(`sha256:${h.digest("hex")}`);
  });

  it("refuses traversal, absolute paths and other path tricks", () => {
    for (const p of ["/etc/passwd", "../x", "a/../b", "./a", "a//b", "a/", "", "a\\b", "a\u0000b"]) expect(() => checkTreePath(p)).toThrow();
    expect(loadSkill("s1", [...good, { path: "../escape", bytes: enc("") }], sha).problems[0]!.code).toBe("tree_refused");
    expect(loadSkill("s1", [...good, { path: "SKILL.md/x", bytes: enc("") }], sha).problems[0]!.code).toBe("tree_refused");
    expect(loadSkill("s1", [...good, { path: "SKILL.md", bytes: enc("") }], sha).problems[0]!.message).toMatch(/duplicate/);
  });

  it("side-file problems: unknown exec entrypoint, script outside scripts/ or missing, unknown keys", () => {
    const side = (y: string): string[] => loadSkill("s1", [good[0]!, good[1]!, { path: "agents/hostgate.yaml", bytes: enc(y) }], sha).problems.map((p) => p.code);
    expect(side("capabilities:\n  mcp:\n    exec: [nope]\n")).toEqual(["exec_unknown_entrypoint"]);
    expect(side("entrypoints:\n  x:\n    run: SKILL.md\n    interpreter: bash\n    description: d\n")).toEqual(["entrypoint_outside_scripts"]);
    expect(side("entrypoints:\n  x:\n    run: scripts/missing.sh\n    interpreter: bash\n    description: d\n")).toEqual(["entrypoint_missing_file"]);
    expect(side("entrypoints:\n  x:\n    run: scripts/run.sh\n    interpreter: perl\n    description: d\n")).toEqual(["side_file_invalid"]);
    expect(side("grants: all\n")).toEqual(["side_file_invalid"]);
    expect(loadSkill("s1", [good[1]!], sha).problems[0]!.code).toBe("skill_md_missing");
    expect(loadSkill("s1", [{ path: "SKILL.md", bytes: new Uint8Array([0xff, 0xfe]) }], sha).problems[0]!.code).toBe("skill_md_not_utf8");
  });
});

describe("references, lock file and install folders", () => {
  it("parses name, name@version and name@sha256", () => {
    expect(parseRef("disk-full")).toEqual({ name: "disk-full", kind: "name" });
    expect(parseRef("disk-full@1.2.0")).toEqual({ name: "disk-full", kind: "version", version: "1.2.0" });
    expect(parseRef(`disk-full@sha256:${"a".repeat(64)}`)).toMatchObject({ kind: "digest" });
    for (const bad of ["Disk", "disk@", "disk@sha256:abc", `disk@sha256:${"A".repeat(64)}`, "disk@../x", "a".repeat(513), "@1.0"]) expect(parseRef(bad)).toHaveProperty("error");
  });

  it("lock file: sorted keys, no timestamps, round-trips, strict", () => {
    const lock = { lock_version: 1 as const, skills: { zeta: { source: "registry" as const, version: "1.0.0", digest: `sha256:${"b".repeat(64)}` as const }, alpha: { digest: `sha256:${"a".repeat(64)}` as const, source: "local" as const } } };
    const text = formatLock(lock);
    expect(text.indexOf("alpha")).toBeLessThan(text.indexOf("zeta"));
    expect(text.indexOf('"digest"')).toBeLessThan(text.indexOf('"source"'));
    expect(text.endsWith("}\n")).toBe(true);
    expect(formatLock(parseLock(text))).toBe(text);
    expect(() => parseLock('{"lock_version":1,"skills":{},"generated_at":"now"}')).toThrow(/generated_at/);
    expect(() => parseLock('{"lock_version":1,"skills":{"x":{"digest":"md5:1","source":"registry"}}}')).toThrow(/digest/);
  });

  it("scope and runtimes", () => {
    expect(installFolders("user", undefined).folders).toEqual([".agents/skills", ".claude/skills"]);
    expect(installFolders("project", ["codex", "gemini"]).folders).toEqual([".agents/skills"]);
    expect(() => installFolders("global", [])).toThrow(/scope/);
    expect(() => installFolders("x".repeat(65), [])).toThrow(/64 bytes/);
    expect(() => installFolders("user", Array(9).fill("claude"))).toThrow(/at most 8/);
    expect(() => installFolders("user", ["vim"])).toThrow(/unknown runtime/);
  });
});

describe("confirm tokens", () => {
  const crypto = { randomBase64Url: (n: number) => Buffer.from(Array.from({ length: n }, () => Math.floor(Math.random() * 256))).toString("base64url"), sha256Hex: (s: string) => createHash("sha256").update(s).digest("hex") };
  const setup = () => {
    let now = 1_000_000;
    const book = new ConfirmBook(crypto, () => now);
    const req = { tool: "skills_install_apply" as const, session: sessionBinding({ session: "s-1" }), args: { ref: "disk-full@1.0.0", scope: "user", runtimes: ["claude"] } };
    const { token } = book.mint(req, "plan-hash");
    return { book, req, token, advance: (ms: number) => { now += ms; } };
  };
  const code = (fn: () => unknown): string => { try { fn(); return "ok"; } catch (e) { return (e as HostgateError).code; } };

  it("redeems once with the same session and arguments", () => {
    const { book, req, token } = setup();
    expect(token).toMatch(/^hgc_[A-Za-z0-9_-]{43}$/);
    expect(book.redeem(token, { ...req, args: { ...req.args, confirm: token } })).toBe("plan-hash");
    expect(code(() => book.redeem(token, req))).toBe("confirm.used");
  });
  it("missing, malformed, unknown", () => {
    const { book, req } = setup();
    expect(code(() => book.redeem(undefined, req))).toBe("confirm.missing");
    expect(code(() => book.redeem("", req))).toBe("confirm.missing");
    expect(code(() => book.redeem("yes", req))).toBe("confirm.invalid");
    expect(code(() => book.redeem(`hgc_${"A".repeat(43)}`, req))).toBe("confirm.invalid");
  });
  it("expired after 5 minutes", () => {
    const { book, req, token, advance } = setup();
    advance(CONFIRM_TTL_MS);
    expect(code(() => book.redeem(token, req))).toBe("confirm.expired");
  });
  it("other session, then spent", () => {
    const { book, req, token } = setup();
    expect(code(() => book.redeem(token, { ...req, session: sessionBinding({ session: "s-2" }) }))).toBe("confirm.other_session");
    expect(code(() => book.redeem(token, req))).toBe("confirm.used");
  });
  it("HTTP binding by caller identity keeps callers apart", () => {
    expect(sessionBinding({ uid: 1000, client: "a" })).not.toBe(sessionBinding({ uid: 1001, client: "a" }));
    expect(sessionBinding({ uid: 1000 })).not.toBe(sessionBinding({ session: "1000" }));
  });
  it("other arguments or another tool", () => {
    const a = setup();
    expect(code(() => a.book.redeem(a.token, { ...a.req, args: { ...a.req.args, scope: "project" } }))).toBe("confirm.arguments_changed");
    const b = setup();
    expect(code(() => b.book.redeem(b.token, { ...b.req, tool: "skills_sync_apply" }))).toBe("confirm.arguments_changed");
    // Key order does not matter (canonical JSON).
    const c = setup();
    expect(c.book.redeem(c.token, { ...c.req, args: { runtimes: ["claude"], scope: "user", ref: "disk-full@1.0.0" } })).toBe("plan-hash");
  });
});

describe("search and routing", () => {
  it("stems inflections", () => {
    expect(["restarting", "restarts", "restarted"].map(stem)).toEqual(["restart", "restart", "restart"]);
    expect(stem("flapping")).toBe("flap");
    expect(stem("logs")).toBe("log");
    expect(stem("certificates")).toBe("certificate");
  });
  it("ranks name over body and explains the route", () => {
    const idx = new SkillIndex([
      { name: "disk-full", description: "Free a full filesystem.", body: "Check df and du." },
      { name: "log-growth", description: "Logs that grow.", body: "A disk can fill with logs." },
    ]);
    expect(idx.search("disk", 5).map((h) => h.name)).toEqual(["disk-full", "log-growth"]);
    const r = routeIntent(idx, "the filesystem is full");
    expect(r.skill).toBe("disk-full");
    expect(r.why).toMatch(/description: .*filesystem/);
    expect(routeIntent(idx, "the of and").skill).toBeNull();
  });
});

describe("redaction of exec output", () => {
  it("stays linear on one long line of letters (a 1 MiB line would take hours if quadratic)", async () => {
    const { redactSecrets } = await import("../../src/core/redact.ts");
    expect(redactSecrets("a".repeat(1024 * 1024)).redactions).toBe(0);
    expect(redactSecrets("AWS_SECRET_KEY=abc123 MY_DB_PASSWORD=x1").text).toBe("AWS_SECRET_KEY=[redacted:credential_assignment] MY_DB_PASSWORD=[redacted:credential_assignment]");
  });
});
