import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { SkillsClient, SkillVerificationError } from "@modelcontextprotocol/client/ext/skills";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { startDaemon, type DaemonProcess } from "../helpers/daemon.ts";
import { connectStdio, runHostgateInPty, type Era } from "../helpers/hostgate.ts";

/**
 * The MCP Skills extension (SEP-2640) end to end: a real `hostgate daemon` with a skills root this test writes,
 * a real `hostgate mcp` front on its socket, and the SDK's client: raw requests through `client.request` with a
 * schema, and the SDK's own host side (`SkillsClient`), which checks sizes, digests and front matter. No
 * conformance package here has the extension's scenarios (@modelcontextprotocol/conformance 0.1.13 and 0.1.16
 * have none), so this is the conformance check.
 */

const Resource = z.object({ uri: z.string(), digest: z.string(), size: z.number() });
const Entry = z.object({ uri: z.string(), frontmatter: z.record(z.string(), z.unknown()), resources: z.array(Resource), _meta: z.record(z.string(), z.unknown()).optional() });
const ListResult = z.object({ skills: z.array(Entry), nextCursor: z.string().optional(), ttlMs: z.number().optional(), cacheScope: z.string().optional() }).loose();
const GetResult = z.object({ skill: Entry, ttlMs: z.number().optional(), cacheScope: z.string().optional() }).loose();
const DirResult = z.object({ resources: z.array(z.object({ uri: z.string(), name: z.string(), mimeType: z.string(), size: z.number().optional() })), nextCursor: z.string().optional() }).loose();
type EntryT = z.infer<typeof Entry>;

/** A JSON-RPC refusal -32602 whose message matches `why`. */
const refusal = (why: RegExp) => (e: unknown): boolean => (e as { code?: number }).code === -32602 && why.test((e as Error).message);

const sha = (b: string | Uint8Array): string => `sha256:${createHash("sha256").update(b).digest("hex")}`;

const SKILL_MD = "---\nname: probe-kit\ndescription: Probe a host for the extension test.\nlicense: Apache-2.0\nmetadata:\n  version: \"1.2.0\"\n  author: test\n---\n\n# Probe kit\n\nRun `scripts/probe.sh`; notes in `references/notes.md`.\n";
const SIDE = "entrypoints:\n  probe:\n    run: scripts/probe.sh\n    interpreter: bash\n    description: Prints a marker.\n    timeout_seconds: 20\ncapabilities:\n  mcp:\n    exec: [probe]\n";
const BINARY = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff, 0xfe, 0x10]);

async function listAll(c: Client): Promise<EntryT[]> {
  const out: EntryT[] = [];
  let cursor: string | undefined;
  do {
    const page = await c.request({ method: "skills/list", params: cursor ? { cursor } : {} } as never, ListResult);
    out.push(...page.skills);
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}
const get = (c: Client, uri: string) => c.request({ method: "skills/get", params: { uri } } as never, GetResult);
const dir = (c: Client, uri: string) => c.request({ method: "resources/directory/read", params: { uri } } as never, DirResult);
type CallResult = { structuredContent?: { ok: boolean; data?: Record<string, unknown>; error?: { code: string; message: string; details?: Record<string, unknown> } } };
const execute = async (c: Client, ref: string): Promise<NonNullable<CallResult["structuredContent"]>> => ((await c.callTool({ name: "skills_execute", arguments: { ref, entrypoint: "probe" } })) as CallResult).structuredContent!;

describe("MCP Skills extension (SEP-2640): a real daemon and front, the SDK's client", () => {
  let root: string;
  let daemon: DaemonProcess;
  let frontEnv: Record<string, string>;
  const files: Record<string, string | Uint8Array> = {
    "SKILL.md": SKILL_MD,
    "agents/hostgate.yaml": SIDE,
    "scripts/probe.sh": "#!/bin/bash\necho probe-ok-v1\n",
    "references/notes.md": "Notes.\n",
    "references/deep/more.md": "More.\n",
    "assets/logo.bin": BINARY,
  };
  const write = (skill: string, rel: string, content: string | Uint8Array): void => {
    mkdirSync(join(root, skill, rel, ".."), { recursive: true });
    writeFileSync(join(root, skill, rel), content);
  };

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "sk-ext-roots-"));
    for (const [rel, content] of Object.entries(files)) write("probe-kit", rel, content);
    // A folder whose SKILL.md names another skill: the URI's last segment would not be the skill's name.
    write("wrong-name", "SKILL.md", "---\nname: right-name\ndescription: Its folder says otherwise.\n---\nBody.\n");
    // Enough skills for a second page of skills/list (50 a page).
    for (let i = 0; i < 52; i++) write(`bulk-${String(i).padStart(2, "0")}`, "SKILL.md", `---\nname: bulk-${String(i).padStart(2, "0")}\ndescription: Filler skill ${i}.\n---\nBody ${i}.\n`);
    daemon = await startDaemon(`skills:\n  roots: [${JSON.stringify(root)}]\n  allow_exec: true\n  rescan_ms: 0\n`);
    frontEnv = { ...daemon.env, HOSTGATE_SOCKET: daemon.agentSocket, HOME: daemon.dir, XDG_CONFIG_HOME: join(daemon.dir, "xdg") };
  }, 60_000);
  afterAll(async () => {
    await daemon?.stop();
    if (daemon) rmSync(daemon.dir, { recursive: true, force: true });
    rmSync(root, { recursive: true, force: true });
  });

  for (const era of ["modern", "legacy"] as Era[]) {
    it(`${era}: declares the extension (directoryRead) beside resources; skills/list pages every valid skill with its verbatim front matter and per-file sha256 digests`, async () => {
      const c = await connectStdio(era, [], frontEnv);
      try {
        const caps = c.getServerCapabilities();
        expect(caps?.extensions?.["io.modelcontextprotocol/skills"]).toEqual({ directoryRead: true });
        expect(caps?.resources).toBeDefined();
        const first = await c.request({ method: "skills/list", params: {} } as never, ListResult);
        expect(first.skills).toHaveLength(50);
        expect(first.nextCursor).toEqual(expect.any(String));
        if (era === "modern") expect(first).toMatchObject({ ttlMs: 0, cacheScope: "private" });
        else expect(first.ttlMs).toBeUndefined();
        const all = await listAll(c);
        const uris = all.map((s) => s.uri);
        expect(new Set(uris).size).toBe(uris.length);
        expect(uris).toEqual(expect.arrayContaining(["skill://probe-kit/SKILL.md", "skill://bulk-00/SKILL.md", "skill://bulk-51/SKILL.md", "skill://disk-full/SKILL.md"]));
        expect(uris.some((u) => u.includes("wrong-name") || u.includes("right-name"))).toBe(false);
        const probe = all.find((s) => s.uri === "skill://probe-kit/SKILL.md")!;
        // The front matter exactly as written (every field, nested metadata), not hostgate's manifest.
        expect(probe.frontmatter).toEqual({ name: "probe-kit", description: "Probe a host for the extension test.", license: "Apache-2.0", metadata: { version: "1.2.0", author: "test" } });
        // Every file once, each digest the SHA-256 of its raw bytes and its size in bytes.
        expect(probe.resources.map((r) => r.uri).sort()).toEqual(Object.keys(files).map((p) => `skill://probe-kit/${p}`).sort());
        for (const r of probe.resources) {
          const content = files[r.uri.slice("skill://probe-kit/".length)]!;
          expect(r.digest).toBe(sha(content));
          expect(r.size).toBe(typeof content === "string" ? Buffer.byteLength(content) : content.length);
        }
        expect(probe._meta).toMatchObject({ "dev.hostgate/version": "1.2.0", "dev.hostgate/untrusted": true, "dev.hostgate/granted_entrypoints": [] });
        expect(probe._meta?.["dev.hostgate/pinned_ref"]).toMatch(/^probe-kit@sha256:[0-9a-f]{64}$/);
        // skills/get answers the same entry.
        expect((await get(c, "skill://probe-kit/SKILL.md")).skill).toEqual(probe);
        await expect(c.request({ method: "skills/list", params: { cursor: "bm90LWEtY3Vyc29y" } } as never, ListResult)).rejects.toMatchObject({ code: -32602 });
      } finally { await c.close(); }
    }, 60_000);
  }

  it("the SDK's host side reads and verifies every file (text and a binary blob) against the entry; a front matter that differs from SKILL.md is refused", async () => {
    const c = await connectStdio("modern", [], frontEnv);
    try {
      const host = new SkillsClient(c);
      expect(host.supported).toBe(true);
      expect(host.directoryRead).toBe(true);
      const { skill } = await host.get("skill://probe-kit/SKILL.md");
      const md = await host.read(skill);
      expect(md).toMatchObject({ verified: true, frontmatter: skill.frontmatter });
      expect(md.body).toContain("# Probe kit");
      const bin = await host.read(skill, "assets/logo.bin");
      expect(bin.verified).toBe(true);
      expect([...bin.bytes]).toEqual([...BINARY]);
      expect((await host.read(skill, "scripts/probe.sh")).text).toBe(files["scripts/probe.sh"]);
      // A listed description that is not the one SKILL.md carries (same bytes, same digest): the host refuses.
      const forged = { ...skill, frontmatter: { ...skill.frontmatter, description: "Something else entirely." } };
      const err = await host.read(forged).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SkillVerificationError);
      expect(err).toMatchObject({ reason: "frontmatter" });
    } finally { await c.close(); }
  }, 60_000);

  it("a SKILL.md whose front-matter name is not its URI's last segment is refused by skills/get with a clear -32602, and not listed", async () => {
    const c = await connectStdio("modern", [], frontEnv);
    try {
      const err: unknown = await get(c, "skill://wrong-name/SKILL.md").then(() => null, (e: unknown) => e);
      expect(err).toMatchObject({ code: -32602 });
      expect((err as Error).message).toMatch(/skill:\/\/wrong-name\/SKILL\.md is not served: the front matter of its SKILL\.md does not match the URI: name "right-name" must equal the skill's directory name "wrong-name"/);
      expect((err as Error).message).toMatch(/Rename the folder or set name: wrong-name in SKILL\.md/);
      await expect(get(c, "skill://right-name/SKILL.md")).rejects.toSatisfy(refusal(/No skill is served at skill:\/\/right-name\/SKILL\.md/));
    } finally { await c.close(); }
  }, 60_000);

  it("unknown skills, other URIs and non-directories are -32602 with what to do; directory reads list direct children", async () => {
    const c = await connectStdio("modern", [], frontEnv);
    try {
      await expect(get(c, "skill://no-such-skill/SKILL.md")).rejects.toSatisfy(refusal(/No skill is served at skill:\/\/no-such-skill\/SKILL\.md\. skills\/list lists/));
      await expect(get(c, "skill://probe-kit/scripts/probe.sh")).rejects.toSatisfy(refusal(/is not the URI of a skill's SKILL\.md/));
      await expect(get(c, "file:///etc/passwd")).rejects.toSatisfy(refusal(/is not a skill:\/\/ URI/));
      await expect(get(c, "skill://Probe_Kit/SKILL.md")).rejects.toSatisfy(refusal(/does not start with a skill name/));
      const root = await dir(c, "skill://probe-kit");
      expect(root.resources).toEqual([
        { uri: "skill://probe-kit/SKILL.md", name: "SKILL.md", mimeType: "text/markdown", size: Buffer.byteLength(SKILL_MD) },
        { uri: "skill://probe-kit/agents", name: "agents", mimeType: "inode/directory" },
        { uri: "skill://probe-kit/assets", name: "assets", mimeType: "inode/directory" },
        { uri: "skill://probe-kit/references", name: "references", mimeType: "inode/directory" },
        { uri: "skill://probe-kit/scripts", name: "scripts", mimeType: "inode/directory" },
      ]);
      expect((await dir(c, "skill://probe-kit/references")).resources.map((r) => [r.name, r.mimeType])).toEqual([["deep", "inode/directory"], ["notes.md", "text/markdown"]]);
      await expect(dir(c, "skill://probe-kit/SKILL.md")).rejects.toSatisfy(refusal(/is not a directory resource: it is a file/));
      await expect(dir(c, "skill://probe-kit/nothing")).rejects.toSatisfy(refusal(/probe-kit has no folder nothing/));
      await expect(dir(c, "skill://probe-kit/references/")).rejects.toSatisfy(refusal(/no trailing slash/));
      await expect(dir(c, "skill://no-such-skill")).rejects.toMatchObject({ code: -32602 });
    } finally { await c.close(); }
  }, 60_000);

  it.each(["modern", "legacy"] as const)("a resources/read of a resource that does not exist is -32602 with data { uri } (SEP-2164), %s client", async (era) => {
    const c = await connectStdio(era, [], frontEnv);
    try {
      const uri = "skill://no-such-skill/SKILL.md";
      const err = await c.readResource({ uri }).catch((e: unknown) => e as { code: number; message: string; data: unknown });
      expect(err).toMatchObject({ code: -32602, data: { uri } });
      expect(err.message).toMatch(/no-such-skill/);
      // A malformed URI is an ordinary Invalid Params: no `uri` in its data, so a client does not take it for a miss.
      const bad = await c.readResource({ uri: "skill://probe-kit/../../etc/passwd" }).catch((e: unknown) => e as { code: number; data?: unknown });
      expect(bad.code).toBe(-32602);
      expect((bad.data as { uri?: string } | undefined)?.uri).toBeUndefined();
    } finally { await c.close(); }
  }, 60_000);

  it("T3-25 skill:// reads refuse traversal in every spelling (.., %2e%2e, an encoded /); no byte outside the skill", async () => {
    const c = await connectStdio("modern", [], frontEnv);
    try {
      for (const uri of ["skill://probe-kit/../../../../etc/passwd", "skill://probe-kit/%2e%2e/%2e%2e/%2e%2e/etc/passwd", "skill://probe-kit/scripts%2F..%2F..%2Fetc/passwd", "skill://probe-kit/scripts/../../../etc/passwd"]) {
        const err = await c.readResource({ uri }).catch((e: unknown) => e as { code: number; message: string });
        expect(err, uri).toMatchObject({ code: -32602 });
        expect(JSON.stringify(err)).not.toMatch(/root:x:0:0/);
      }
    } finally { await c.close(); }
  }, 60_000);

  it("an exec grant binds to the digest set: after a planted edit the entry shows a new set and no grant, the new tree is refused naming the changed file, the granted tree still runs as granted", async () => {
    const c = await connectStdio("modern", ["--allow-exec"], frontEnv);
    try {
      const before = (await get(c, "skill://probe-kit/SKILL.md")).skill;
      const ref = before._meta!["dev.hostgate/pinned_ref"] as string;
      const grant = await runHostgateInPty(["skills", "grants", "add", ref, "probe", "--socket", daemon.adminSocket], { env: daemon.env });
      expect(grant.code, grant.output).toBe(0);
      expect((await get(c, "skill://probe-kit/SKILL.md")).skill._meta?.["dev.hostgate/granted_entrypoints"]).toEqual(["probe"]);
      const ran = await execute(c, ref);
      expect(ran, JSON.stringify(ran)).toMatchObject({ ok: true, data: { exit_code: 0 } });
      expect(ran.data!.stdout).toBe("probe-ok-v1\n");

      // A planted edit: one file of the skill changes on disk after the grant.
      write("probe-kit", "scripts/probe.sh", "#!/bin/bash\necho planted\n");
      const after = (await get(c, "skill://probe-kit/SKILL.md")).skill;
      const changed = after.resources.filter((r) => before.resources.find((b) => b.uri === r.uri)?.digest !== r.digest).map((r) => r.uri);
      expect(changed).toEqual(["skill://probe-kit/scripts/probe.sh"]);
      expect(after.resources.find((r) => r.uri.endsWith("probe.sh"))!.digest).toBe(sha("#!/bin/bash\necho planted\n"));
      const newRef = after._meta!["dev.hostgate/pinned_ref"] as string;
      expect(newRef).not.toBe(ref);
      expect(after._meta?.["dev.hostgate/granted_entrypoints"]).toEqual([]);
      const refused = await execute(c, newRef);
      expect(refused).toMatchObject({ ok: false, error: { code: "exec_refused", details: { gate: "grant" } } });
      expect(refused.error!.message).toMatch(/was granted for sha256:[0-9a-f]{64}, and the skill's files changed since \(scripts\/probe\.sh changed\); a changed skill needs a new grant/);
      // The old pinned ref runs the tree that was granted (kept in the store), never the planted bytes.
      const old = await execute(c, ref);
      expect(old).toMatchObject({ ok: true, data: { exit_code: 0 } });
      expect(old.data!.stdout).toBe("probe-ok-v1\n");
      // A new grant for the new set lets the new tree run.
      expect((await runHostgateInPty(["skills", "grants", "add", newRef, "probe", "--socket", daemon.adminSocket], { env: daemon.env })).code).toBe(0);
      expect((await get(c, "skill://probe-kit/SKILL.md")).skill._meta?.["dev.hostgate/granted_entrypoints"]).toEqual(["probe"]);
      expect((await execute(c, newRef)).data?.stdout).toBe("planted\n");
    } finally {
      write("probe-kit", "scripts/probe.sh", files["scripts/probe.sh"]!);
      await c.close();
    }
  }, 120_000);

  // The front lists what its daemon offers (issue 19), so the skills tools are hidden in the daemon's configuration;
  // a front whose own config hid them used to stand for this, and no longer hides anything the daemon offers.
  it("a front whose daemon hides the skills tools does not declare the extension (-32601 for skills/list)", async () => {
    const hidden = await startDaemon(`skills:\n  roots: [${JSON.stringify(root)}]\ntools:\n  groups:\n    skills: false\n`);
    try {
      const c = await connectStdio("modern", [], { ...hidden.env, HOSTGATE_SOCKET: hidden.agentSocket, HOME: hidden.dir, XDG_CONFIG_HOME: join(hidden.dir, "xdg") });
      try {
        expect(c.getServerCapabilities()?.extensions?.["io.modelcontextprotocol/skills"]).toBeUndefined();
        await expect(c.request({ method: "skills/list", params: {} } as never, ListResult)).rejects.toMatchObject({ code: -32601 });
      } finally { await c.close(); }
    } finally {
      await hidden.stop();
      rmSync(hidden.dir, { recursive: true, force: true });
    }
  }, 60_000);
});
