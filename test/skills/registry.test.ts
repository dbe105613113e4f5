import { lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openRegistry } from "../../src/adapters/skills-registry.ts";
import { fsSkillStore, localSkillSource, readTree } from "../../src/adapters/skills-fs.ts";
import { fsSkillInstaller } from "../../src/adapters/skills-install.ts";
import type { HostgateError } from "../../src/core/errors.ts";
import type { SkillDigest } from "../../src/core/skills/digest.ts";
import { digestOf, serveRegistry, skillFiles, writeRegistry } from "../helpers/skill-registry.ts";

const tmp = mkdtempSync(join(tmpdir(), `skills-registry-${process.pid}-`));
afterAll(() => { rmSync(tmp, { recursive: true, force: true }); });
const codeOf = async (p: Promise<unknown>): Promise<string> => p.then(() => "ok", (e: unknown) => (e as HostgateError).code ?? String(e));

describe("registry over HTTP on 127.0.0.1, with real archives", () => {
  const dir = join(tmp, "reg");
  let server: Awaited<ReturnType<typeof serveRegistry>>;
  beforeAll(async () => {
    writeRegistry(dir, [
      { name: "good", version: "1.0.0", files: skillFiles("good", { "scripts/run.sh": "echo ok\n", "references/notes.md": "notes" }) },
      { name: "good", version: "1.1.0", files: skillFiles("good", { "scripts/run.sh": "echo newer\n" }) },
      { name: "tampered", version: "1.0.0", files: skillFiles("tampered"), pin: digestOf(skillFiles("tampered", { "extra.md": "x" })) },
      { name: "traversal", version: "1.0.0", files: {}, entries: [{ path: "traversal/SKILL.md", content: "x" }, { path: "traversal/../../evil.sh", content: "rm -rf /" }] },
      { name: "absolute", version: "1.0.0", files: {}, entries: [{ path: "/etc/cron.d/evil", content: "x" }] },
      { name: "symlink", version: "1.0.0", files: {}, entries: [{ path: "symlink/SKILL.md", content: "x" }, { path: "symlink/passwd", type: "symlink", linkname: "/etc/passwd" }] },
      { name: "hardlink", version: "1.0.0", files: {}, entries: [{ path: "hardlink/SKILL.md", content: "x" }, { path: "hardlink/shadow", type: "link", linkname: "/etc/shadow" }] },
      { name: "device", version: "1.0.0", files: {}, entries: [{ path: "device/null", type: "chardev" }] },
      { name: "outside", version: "1.0.0", files: {}, entries: [{ path: "other/SKILL.md", content: "x" }] },
    ]);
    server = await serveRegistry(dir, { hang: (p) => p.includes("/slow/"), stall: (p) => p.includes("stall") });
  });
  afterAll(async () => { await server.close(); });

  it("reads the index and a release, and verifies the tree digest", async () => {
    const reg = openRegistry(server.url);
    const index = await reg.index();
    expect(index.skills.good!.latest).toBe("1.1.0");
    const rec = await reg.release("good", "1.0.0");
    expect(rec.digest).toBe(digestOf(skillFiles("good", { "scripts/run.sh": "echo ok\n", "references/notes.md": "notes" })));
    const files = await reg.fetchTree(rec);
    expect(files.map((f) => f.path).sort()).toEqual(["SKILL.md", "references/notes.md", "scripts/run.sh"]);
  });

  it("a tampered archive (digest mismatch) is refused", async () => {
    const reg = openRegistry(server.url);
    expect(await codeOf(reg.fetchTree(await reg.release("tampered", "1.0.0")))).toBe("digest_mismatch");
  });

  it("path traversal, absolute paths, symlinks, hard links, devices and entries outside <name>/ are refused", async () => {
    const reg = openRegistry(server.url);
    for (const name of ["traversal", "absolute", "symlink", "hardlink", "device", "outside"]) {
      const err = await reg.fetchTree(await reg.release(name, "1.0.0")).then(() => null, (e: unknown) => e as HostgateError);
      expect(err?.code, name).toBe("archive_refused");
    }
    // Nothing of them reached the disk anywhere near the registry or the tmp dir.
    expect(readdirSync(tmp).sort()).toEqual(["reg"]);
  });

  it("a registry that hangs answers registry_unreachable within the deadline", async () => {
    const reg = openRegistry(`${server.url}slow/`, { timeoutMs: 300 });
    const t0 = Date.now();
    expect(await codeOf(reg.index())).toBe("registry_unreachable");
    expect(Date.now() - t0).toBeLessThan(5000);
  });

  it("a registry that stalls mid-body answers registry_unreachable", async () => {
    writeRegistry(join(dir, "stall"), [{ name: "good", version: "1.0.0", files: skillFiles("good") }]);
    const reg = openRegistry(`${server.url}stall/`, { timeoutMs: 300 });
    expect(await codeOf(reg.index())).toBe("registry_unreachable");
  });

  it("a refused connection, a 404 and a bad record are errors with stable codes", async () => {
    expect(await codeOf(openRegistry("http://127.0.0.1:1/", { timeoutMs: 2000 }).index())).toBe("registry_unreachable");
    expect(await codeOf(openRegistry(server.url).release("good", "9.9.9"))).toBe("not_found");
    writeFileSync(join(dir, "releases", "good", "2.0.0.json"), JSON.stringify({ name: "good", version: "2.0.0", digest: "sha256:zz", archive: "a" }));
    expect(await codeOf(openRegistry(server.url).release("good", "2.0.0"))).toBe("registry_error");
    writeFileSync(join(dir, "releases", "good", "3.0.0.json"), JSON.stringify({ name: "good", version: "3.0.0", digest: `sha256:${"a".repeat(64)}`, archive: "../../etc/passwd" }));
    expect(await codeOf(openRegistry(server.url).release("good", "3.0.0"))).toBe("registry_error");
  });

  it("plain http is refused off loopback", () => {
    expect(() => openRegistry("http://registry.example.org/")).toThrow(/loopback/);
    expect(() => openRegistry("relative/path")).toThrow(/absolute path/);
  });

  it("the same registry from a path", async () => {
    const reg = openRegistry(dir);
    const files = await reg.fetchTree(await reg.release("good", "1.1.0"));
    expect(files).toHaveLength(2);
    expect(await codeOf(openRegistry(`file://${dir}`).release("nope", "1.0.0"))).toBe("not_found");
  });
});

describe("local store, installer and local roots", () => {
  const files = [{ path: "SKILL.md", bytes: new TextEncoder().encode("---\nname: s\ndescription: d\n---\n") }, { path: "scripts/x.sh", bytes: new TextEncoder().encode("echo\n") }];
  const digest = digestOf({ "SKILL.md": "---\nname: s\ndescription: d\n---\n", "scripts/x.sh": "echo\n" }) as SkillDigest;

  it("store: content-addressed, read-only, verified on write and on read", async () => {
    const store = fsSkillStore(join(tmp, "store"));
    expect(await store.has(digest)).toBe(false);
    expect(await codeOf(store.put(`sha256:${"0".repeat(64)}`, files))).toBe("digest_mismatch");
    const p = await store.put(digest, files);
    expect(p).toBe(store.pathOf(digest));
    expect(statSync(p).mode & 0o777).toBe(0o555);
    expect(statSync(join(p, "SKILL.md")).mode & 0o777).toBe(0o444);
    expect((await store.get(digest))!.map((f) => f.path)).toEqual(["SKILL.md", "scripts/x.sh"]);
    expect(await store.put(digest, files)).toBe(p);
  });

  it("installer: atomic replace of its own folder, refuses symlinked targets and folders it did not create, lock round-trip", async () => {
    const inst = fsSkillInstaller({ recordPath: join(tmp, "state", "installed.json") });
    const home = join(tmp, "home");
    mkdirSync(home);
    const rel = ".claude/skills/s";
    const target = join(home, rel);
    expect(await inst.inspect(home, rel)).toEqual({ state: "absent" });
    await inst.install(home, rel, files, digest);
    expect(await inst.inspect(home, rel)).toEqual({ state: "present", digest });
    expect(statSync(join(target, "scripts/x.sh")).mode & 0o777).toBe(0o755);
    const one = [files[0]!];
    const oneDigest = digestOf({ "SKILL.md": "---\nname: s\ndescription: d\n---\n" }) as SkillDigest;
    await inst.install(home, rel, one, oneDigest);
    expect(readdirSync(target)).toEqual(["SKILL.md"]);
    expect(readdirSync(join(home, ".claude", "skills"))).toEqual(["s"]);
    symlinkSync(target, join(home, ".claude", "skills", "linked"));
    expect((await inst.inspect(home, ".claude/skills/linked")).state).toBe("blocked");
    // A folder someone else made there is never replaced, and its digest is not shown.
    mkdirSync(join(home, ".claude", "skills", "mine"));
    writeFileSync(join(home, ".claude", "skills", "mine", "SKILL.md"), "my own");
    const mine = await inst.inspect(home, ".claude/skills/mine");
    expect(mine).toMatchObject({ state: "blocked", reason: expect.stringMatching(/not installed by hostgate/) as unknown });
    expect(JSON.stringify(mine)).not.toMatch(/sha256/);
    await expect(inst.install(home, ".claude/skills/mine", files, digest)).rejects.toMatchObject({ code: "confirm.plan_changed" });
    expect(readdirSync(join(home, ".claude", "skills", "mine"))).toEqual(["SKILL.md"]);
    // Edited after hostgate installed it: blocked too.
    writeFileSync(join(target, "SKILL.md"), "edited");
    expect(await inst.inspect(home, rel)).toMatchObject({ state: "blocked", reason: expect.stringMatching(/changed since hostgate installed it/) as unknown });
    expect((await inst.readLock(home)).state).toBe("absent");
    await inst.writeLock(home, { lock_version: 1, skills: { s: { digest, source: "local" } } });
    expect(await inst.readLock(home)).toEqual({ state: "present", path: join(home, ".agents", "skills-lock.json"), lock: { lock_version: 1, skills: { s: { digest, source: "local" } } } });
  });

  it("local roots: symlinks inside a skill make it invalid with a reason; a missing root is reported", async () => {
    const root = join(tmp, "root");
    mkdirSync(join(root, "ok", "scripts"), { recursive: true });
    writeFileSync(join(root, "ok", "SKILL.md"), "---\nname: ok\ndescription: fine\n---\nbody\n");
    mkdirSync(join(root, "linky"), { recursive: true });
    writeFileSync(join(root, "linky", "SKILL.md"), "---\nname: linky\ndescription: has a link\n---\n");
    symlinkSync("/etc/passwd", join(root, "linky", "passwd"));
    mkdirSync(join(root, "notaskill"));
    const scan = await localSkillSource([root, join(tmp, "missing")]).scan();
    expect(scan.roots.map((r) => r.status)).toEqual(["ok", "missing"]);
    expect(scan.skills.map((s) => [s.skill.name, s.skill.problems.map((p) => p.code)])).toEqual([["linky", ["tree_refused"]], ["ok", []]]);
    expect(lstatSync(join(root, "linky", "passwd")).isSymbolicLink()).toBe(true);
    await expect(readTree(join(root, "linky"))).rejects.toThrow(/symbolic link/);
  });
});
