import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openRegistry } from "../../src/adapters/skills-registry.ts";
import { readArchive, unpackArchive } from "../../src/adapters/skills-unpack.ts";
import type { HostgateError } from "../../src/core/errors.ts";
import type { SkillsEnvelope } from "../../src/ipc/skills.ts";
import { rawIpc, startDaemon, type DaemonProcess } from "../helpers/daemon.ts";
import { digestOf, makeTar, serveRegistry, skillFiles, writeRegistry } from "../helpers/skill-registry.ts";
import { skillsFixture, type SkillsFixture } from "../helpers/skills-service.ts";

/**
 * Hostile registry archives and release records (issue 21; corpus cases T3-18..T3-23), through the real
 * service: a loopback HTTP registry, real gzip archives, plan then apply. "Nothing written" is checked on the
 * home (both client folders), the daemon's store and a scratch folder the archives aim at.
 */

const tmp = mkdtempSync(join(tmpdir(), `skills-archives-${process.pid}-`));
const scratch = join(tmp, "scratch");
mkdirSync(scratch);
afterAll(() => { rmSync(tmp, { recursive: true, force: true }); });

const A = { actor: "test:alice", uid: 1000, client: "vitest" };
const code = (e: SkillsEnvelope): string => (e.ok ? "ok" : e.error.code);
const MiB = 1024 * 1024;

/** `n` bytes of zeros as concatenated gzip members of ≤ 16 MiB each (gunzip reads them as one stream). */
function zeroMembers(n: number): Buffer {
  const block = gzipSync(Buffer.alloc(Math.min(n, 16 * MiB)), { level: 9 });
  const parts: Buffer[] = [];
  for (let left = n; left > 0; left -= 16 * MiB) parts.push(left >= 16 * MiB ? block : gzipSync(Buffer.alloc(left), { level: 9 }));
  return Buffer.concat(parts);
}

/** A valid tar of `files` under `name/` (with its end-of-archive blocks), gzipped, followed by `padding` zero bytes. */
function padded(name: string, files: Record<string, string | Uint8Array>, padding: number): Buffer {
  const tar = makeTar(Object.entries(files).map(([p, c]) => ({ path: `${name}/${p}`, content: c })), true);
  return Buffer.concat([tar, zeroMembers(padding)]);
}

describe("hostile archives and records: plan + apply through the service", () => {
  const dir = join(tmp, "reg");
  let server: Awaited<ReturnType<typeof serveRegistry>>;
  let f: SkillsFixture;
  const padFiles = skillFiles("padded");
  beforeAll(async () => {
    writeRegistry(join(dir, "reg"), [
      { name: "okskill", version: "1.0.0", files: skillFiles("okskill") },
      { name: "trav", version: "1.0.0", files: skillFiles("trav"), entries: [{ path: "trav/SKILL.md", content: skillFiles("trav")["SKILL.md"]! }, { path: `trav/../../../../${scratch.slice(1)}/trav-escaped`, content: "escaped" }] },
      { name: "linky", version: "1.0.0", files: skillFiles("linky"), entries: [{ path: "linky/SKILL.md", content: skillFiles("linky")["SKILL.md"]! }, { path: "linky/out", type: "symlink", linkname: `../../../..${scratch}` }, { path: "linky/out/linky-escaped", content: "escaped" }] },
      { name: "hardy", version: "1.0.0", files: skillFiles("hardy"), entries: [{ path: "hardy/SKILL.md", content: skillFiles("hardy")["SKILL.md"]! }, { path: "hardy/passwd", type: "link", linkname: "/etc/passwd" }] },
      { name: "padded", version: "1.0.0", files: padFiles },
      { name: "bomb", version: "1.0.0", files: skillFiles("bomb") },
      { name: "dots", version: "1.0.0", files: skillFiles("dots") },
      { name: "other", version: "1.0.0", files: skillFiles("other") },
    ]);
    // T3-23: the padded release is a valid one-file skill followed by 2 GiB of zeros after the end-of-archive
    // blocks; the bomb is a refused entry followed by 2 GiB of zeros (no end-of-archive at all).
    writeFileSync(join(dir, "reg", "archives", "padded-1.0.0.tar.gz"), padded("padded", padFiles, 2048 * MiB));
    writeFileSync(join(dir, "reg", "archives", "bomb-1.0.0.tar.gz"), Buffer.concat([gzipSync(makeTar([{ path: "bomb/dev", type: "chardev" }], false).subarray(0, 512)), zeroMembers(2048 * MiB)]));
    // T3-21: an archive one level above the registry base, named with %2e%2e; T3-22: another scheme's host.
    mkdirSync(join(dir, "outside"), { recursive: true });
    writeFileSync(join(dir, "outside", "dots.tar"), makeTar(Object.entries(skillFiles("dots")).map(([p, c]) => ({ path: `dots/${p}`, content: c })), false));
    writeFileSync(join(dir, "reg", "releases", "dots", "1.0.0.json"), JSON.stringify({ name: "dots", version: "1.0.0", digest: digestOf(skillFiles("dots")), archive: "%2e%2e/outside/dots.tar" }));
    writeFileSync(join(dir, "reg", "releases", "other", "1.0.0.json"), JSON.stringify({ name: "other", version: "1.0.0", digest: digestOf(skillFiles("other")), archive: "https:attacker.example/x.tar" }));
    server = await serveRegistry(dir);
    f = skillsFixture({ registry: `${server.url}reg/`, shipped: false });
  });
  afterAll(async () => { f.close(); await server.close(); });

  const args = (ref: string): Record<string, unknown> => ({ ref, scope: "user", session: "s1" });
  /** Plans, then applies with the plan's token (when it gave one); returns both codes. */
  const planApply = async (ref: string): Promise<{ plan: string; apply: string; error?: string }> => {
    const p = await f.service.call("skills_install_plan", args(ref), A);
    if (!p.ok) return { plan: code(p), apply: "not_run", error: p.error.message };
    const a = await f.service.call("skills_install_apply", { ...args(ref), confirm: p.confirm!.token }, A);
    return { plan: "ok", apply: code(a), ...(a.ok ? {} : { error: a.error.message }) };
  };
  const nothingWritten = (name: string): void => {
    expect(existsSync(join(f.home, ".agents", "skills", name)), name).toBe(false);
    expect(existsSync(join(f.home, ".claude", "skills", name)), name).toBe(false);
    expect(readdirSync(scratch), name).toEqual([]);
    const store = join(f.state, "skills", "store", "sha256");
    expect(existsSync(join(store, digestOf(skillFiles(name)).slice(7))), name).toBe(false);
    expect(existsSync(store) ? readdirSync(store).filter((d) => d.startsWith(".")) : [], name).toEqual([]);
  };

  it("T3-18: an entry with .. after the skill's folder is refused whole; nothing written anywhere", async () => {
    const r = await planApply("trav@1.0.0");
    expect(r).toMatchObject({ plan: "ok", apply: "archive_refused" });
    expect(r.error).toMatch(/path traversal/);
    nothingWritten("trav");
  });

  it("T3-19: a symlink entry, then a file through it: refused whole at the link; nothing written", async () => {
    const r = await planApply("linky@1.0.0");
    expect(r).toMatchObject({ plan: "ok", apply: "archive_refused" });
    expect(r.error).toMatch(/symbolic link/);
    nothingWritten("linky");
  });

  it("T3-20: a hard-link entry to /etc/passwd is refused; nothing written", async () => {
    const r = await planApply("hardy@1.0.0");
    expect(r).toMatchObject({ plan: "ok", apply: "archive_refused" });
    expect(r.error).toMatch(/hard link .*\/etc\/passwd/);
    nothingWritten("hardy");
  });

  it("T3-21: an archive named %2e%2e/… is refused like a literal ..; nothing fetched", async () => {
    const before = server.requests.length;
    const r = await planApply("dots@1.0.0");
    expect(r).toMatchObject({ plan: "registry_error" });
    expect(r.error).toMatch(/outside the registry/);
    expect(server.requests.slice(before).filter((p) => !p.startsWith("/reg/"))).toEqual([]);
    expect(server.requests.some((p) => p.includes("dots.tar"))).toBe(false);
    nothingWritten("dots");
  });

  it("T3-22: https:attacker.example/x.tar under an http registry is refused; nothing fetched", async () => {
    const r = await planApply("other@1.0.0");
    expect(r).toMatchObject({ plan: "registry_error" });
    expect(r.error).toMatch(/attacker\.example/);
    expect(server.requests.some((p) => p.includes("x.tar"))).toBe(false);
    nothingWritten("other");
  });

  it("T3-23: a valid skill followed by 2 GiB of zero padding installs (reading stops at end-of-archive)", async () => {
    const r = await planApply("padded@1.0.0");
    expect(r).toEqual({ plan: "ok", apply: "ok" });
    expect(existsSync(join(f.home, ".claude", "skills", "padded", "SKILL.md"))).toBe(true);
  });

  it("T3-23: a refused entry followed by 2 GiB of zeros is refused at that entry", async () => {
    const r = await planApply("bomb@1.0.0");
    expect(r).toMatchObject({ plan: "ok", apply: "archive_refused" });
    expect(r.error).toMatch(/character device/);
    nothingWritten("bomb");
  });
});

describe("the tar reader's byte count and end-of-archive (T3-23, isolated)", () => {
  const files = skillFiles("pad");
  const tarOf = (extra: Buffer = Buffer.alloc(0)): Buffer => Buffer.concat([Buffer.from(makeTar(Object.entries(files).map(([p, c]) => ({ path: `pad/${p}`, content: c })), false)), extra]);

  it("4, 16 and 32 MiB of padding after end-of-archive: the same files, gzipped or not", async () => {
    for (const mib of [4, 16, 32]) {
      const gz = Buffer.concat([gzipSync(tarOf()), zeroMembers(mib * MiB)]);
      expect((await unpackArchive(gz, "pad")).map((x) => x.path), `${mib} MiB gz`).toEqual(["SKILL.md"]);
      expect((await readArchive(tarOf(Buffer.alloc(mib * MiB)), "pad")).map((x) => x.path), `${mib} MiB raw`).toEqual(["SKILL.md"]);
    }
  });

  it("zeros with no end-of-archive marker before them are counted against the cap like any byte", async () => {
    // Headers of empty files, then a lone zero block followed by data: malformed. And a stream of empty
    // directory entries (no file bytes at all) still stops at the decompressed-byte cap.
    const dirs = makeTar(Array.from({ length: 90_000 }, (_, i) => ({ path: `many/d${i}/`, type: "dir" as const })), false);
    const err = await unpackArchive(gzipSync(dirs), "many").then(() => null, (e: unknown) => e as HostgateError);
    expect(err?.code).toBe("archive_refused");
    expect(err?.message).toMatch(/unpacks to more than 41943040 bytes/);
  });

  it("a gzip inside the tar stream is not unpacked again (the reader sees a bad header and refuses)", async () => {
    const inner = gzipSync(tarOf());
    const err = await unpackArchive(gzipSync(inner), "pad").then(() => null, (e: unknown) => e as HostgateError);
    expect(err?.code).toBe("archive_refused");
  });

  it("a truncated tar (no end-of-archive) and garbage are refused, not half-read", async () => {
    const tar = tarOf();
    for (const bytes of [tar.subarray(0, 1024), Buffer.from("not a tar at all, just text".repeat(40)), Buffer.from([0x1f, 0x8b, 1, 2, 3])]) {
      const err = await unpackArchive(bytes, "pad").then(() => null, (e: unknown) => e as HostgateError);
      expect(err?.code).toBe("archive_refused");
    }
  });

  it("over the time budget the worker is stopped and the archive refused; the next archive is served", async () => {
    const big = gzipSync(makeTar([0, 1, 2].map((i) => ({ path: `pad/f${i}`, content: Buffer.alloc(8 * MiB) })), false));
    const err = await unpackArchive(big, "pad", { timeoutMs: 1 }).then(() => null, (e: unknown) => e as HostgateError);
    expect(err?.code).toBe("archive_refused");
    expect(err?.message).toMatch(/longer than 1 ms/);
    expect((await unpackArchive(gzipSync(tarOf()), "pad")).map((x) => x.path)).toEqual(["SKILL.md"]);
  });

  it("long names (GNU L and pax path) are read; a pax size record is honoured", async () => {
    const long = `pad/${"d".repeat(120)}/notes.md`;
    const ok = makeTar([{ path: "pad/SKILL.md", content: "x" }, { path: long, content: "deep" }], false);
    const files2 = await readArchive(ok, "pad");
    expect(files2.map((x) => x.path)).toEqual(["SKILL.md", `${"d".repeat(120)}/notes.md`]);
  });
});

describe("the admin socket answers while an install unpacks a 2 GiB bomb (T3-23, real daemon)", () => {
  let daemon: DaemonProcess;
  let server: Awaited<ReturnType<typeof serveRegistry>>;
  const dir = join(tmp, "dreg");
  const home = join(tmp, "dhome");
  beforeAll(async () => {
    mkdirSync(home);
    writeRegistry(dir, [{ name: "padded", version: "1.0.0", files: skillFiles("padded") }]);
    writeFileSync(join(dir, "archives", "padded-1.0.0.tar.gz"), padded("padded", skillFiles("padded"), 2048 * MiB));
    server = await serveRegistry(dir);
    daemon = await startDaemon(`skills:\n  allow_install: true\n  registry:\n    url: ${server.url}\n  install:\n    user_base: ${home}\n`);
  });
  afterAll(async () => { await daemon.stop(); await server.close(); rmSync(daemon.dir, { recursive: true, force: true }); });

  it("an admin call sent right after the apply is answered; the apply installs", async () => {
    const a = { ref: "padded@1.0.0", scope: "user", runtimes: ["claude"], session: "d1" };
    const plan = await rawIpc(daemon.agentSocket, "skills_install_plan", a);
    expect(plan, JSON.stringify(plan)).toMatchObject({ ok: true, result: { ok: true, value: { ok: true } } });
    const token = (plan.result as { value: { confirm?: { token: string } } }).value.confirm?.token;
    expect(token, JSON.stringify(plan)).toBeDefined();
    const apply = rawIpc(daemon.agentSocket, "skills_install_apply", { ...a, confirm: token });
    const admin = await rawIpc(daemon.adminSocket, "skills_grants_list", {});
    expect(admin).toMatchObject({ ok: true, result: { ok: true } });
    expect(await apply).toMatchObject({ ok: true, result: { ok: true, value: { ok: true, data: { applied: true } } } });
    expect(existsSync(join(home, ".claude", "skills", "padded", "SKILL.md"))).toBe(true);
  });
});

describe("registry paths stay under the base (core/skills/registry-url.ts through the adapter)", () => {
  it("refuses encoded dots and separators, other origins and other schemes; accepts plain relative paths", async () => {
    const { resolveUnderBase } = await import("../../src/core/skills/registry-url.ts");
    const base = new URL("http://127.0.0.1:9/reg/");
    for (const bad of ["%2e%2e/x.tar", ".%2E/x.tar", "a%2f..%2fb.tar", "https:attacker.example/x.tar", "//evil.example/x.tar", "http://127.0.0.1:10/reg/x.tar", "/other/x.tar", "a?b", "a#b", "a\\b", ""]) {
      expect(() => resolveUnderBase(base, bad), bad).toThrow();
    }
    expect(resolveUnderBase(base, "archives/x.tar.gz").href).toBe("http://127.0.0.1:9/reg/archives/x.tar.gz");
    expect(() => openRegistry("http://127.0.0.1:9/reg/")).not.toThrow();
  });
});

describe("unpackArchive leaves the caller's bytes alone", () => {
  it("a Buffer from the shared pool is copied, not transferred away", async () => {
    const tar = Buffer.from(makeTar([{ path: "pool/SKILL.md", content: "x" }], true));
    const small = Buffer.from("another buffer in the same pool");
    const view = Buffer.from(tar);
    await unpackArchive(view, "pool");
    expect(view.length).toBe(tar.length);
    expect(small.toString()).toBe("another buffer in the same pool");
  });
});
