import { afterEach, describe, expect, it } from "vitest";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command } from "commander";
import { openAuditStore } from "../daemon/audit-store.ts";
import { defaultStateDir, registerAuditCommand } from "./audit.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  process.exitCode = undefined;
});
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), "hostgate-cli-audit-"));
  dirs.push(d);
  return d;
}

async function run(args: string[]): Promise<{ out: string; err: string; code: number }> {
  let out = "";
  let err = "";
  const program = new Command().exitOverride();
  registerAuditCommand(program, { out: (t) => (out += t), err: (t) => (err += t) });
  process.exitCode = undefined;
  await program.parseAsync(["node", "hostgate", ...args]);
  const code = process.exitCode ?? 0;
  process.exitCode = undefined;
  return { out, err, code };
}

async function makeChain(copy?: string, configDir?: string): Promise<string> {
  const dir = tmp();
  const store = openAuditStore(dir, { checkpointEvery: 5, checkpointIdleMs: 0, ...(copy ? { checkpointCopy: { type: "file", path: copy } } : {}), ...(configDir ? { configDir } : {}) });
  for (let i = 0; i < 12; i++) await store.append({ kind: "step", actor: "uid:0", payload: { i } });
  store.close();
  return dir;
}

describe("hostgate audit", () => {
  it("verify: intact with exit 0 only with the pinned key and a copy outside the state dir; JSON output and --since", async () => {
    const conf = tmp();
    const copy = join(tmp(), "cp.jsonl");
    const dir = await makeChain(copy, conf);
    const human = await run(["audit", "verify", "--state-dir", dir, "--config-dir", conf, "--checkpoints", copy]);
    expect(human).toMatchObject({ code: 0, out: "intact: 13 entries up to seq 13, anchored by a signed checkpoint up to seq 13\n" });
    const json = await run(["audit", "verify", "--state-dir", dir, "--config-dir", conf, "--checkpoints", copy, "--since", "10", "--json"]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.out)).toMatchObject({ status: "intact", last_seq: 13, checked: 4 });
  });

  it("verify: the state dir's own keys prove less: unanchored (key_not_pinned), exit 3, never a bare intact", async () => {
    const dir = await makeChain(join(tmp(), "cp.jsonl"));
    const r = await run(["audit", "verify", "--state-dir", dir, "--config-dir", tmp(), "--json"]);
    expect(r.code).toBe(3);
    expect(JSON.parse(r.out)).toMatchObject({ status: "unanchored", reason: "key_not_pinned", last_seq: 13 });
    const human = await run(["audit", "verify", "--state-dir", dir, "--config-dir", tmp()]);
    expect(human.out).toMatch(/^unanchored \(key_not_pinned\): 13 entries up to seq 13 check out, but/);
  });

  it("public-key says where the key is pinned", async () => {
    const conf = tmp();
    const dir = await makeChain(undefined, conf);
    const r = await run(["audit", "public-key", "--state-dir", dir, "--config-dir", conf]);
    expect(r.err).toContain(`pinned at ${conf}/audit-pins/`);
    expect(readFileSync(readdirSync(join(conf, "audit-pins")).map((f) => join(conf, "audit-pins", f))[0]!, "utf8")).toContain(r.out.trim());
  });

  it("verify works offline on a copy of the database with an exported public key", async () => {
    const dir = await makeChain();
    const pem = await run(["audit", "public-key", "--state-dir", dir]);
    expect(pem.out).toMatch(/^-----BEGIN PUBLIC KEY-----\n[\s\S]+-----END PUBLIC KEY-----\n$/);
    const elsewhere = tmp();
    writeFileSync(join(elsewhere, "key.pem"), pem.out);
    writeFileSync(join(elsewhere, "copy.db"), readFileSync(join(dir, "audit.db")));
    const r = await run(["audit", "verify", "--db", join(elsewhere, "copy.db"), "--public-key", join(elsewhere, "key.pem"), "--json"]);
    // A copied database and a key, but nothing that says where the chain ended: unanchored (exit 3)…
    expect(r.code).toBe(3);
    expect(JSON.parse(r.out)).toMatchObject({ status: "unanchored", reason: "no_outside_anchor", last_seq: 13 });
    // …until the verifier holds a witness of the head (as `hostgate approve` and execute hand out).
    const head = JSON.parse((await run(["audit", "export", "--db", join(elsewhere, "copy.db")])).out.trim().split("\n").filter((l) => l.includes('"type":"entry"')).at(-1)!) as { seq: number; hash: string };
    const w = await run(["audit", "verify", "--db", join(elsewhere, "copy.db"), "--public-key", join(elsewhere, "key.pem"), "--witness", `${head.seq}:${head.hash}`, "--json"]);
    expect(w.code).toBe(0);
    expect(JSON.parse(w.out)).toMatchObject({ status: "intact", last_seq: 13, anchored_seq: 13 });
  });

  it("export writes JSON Lines that verify --jsonl accepts, and a cut export is reported broken (exit 1)", async () => {
    const dir = await makeChain();
    const file = join(tmp(), "audit.jsonl");
    expect((await run(["audit", "export", "--state-dir", dir, "--out", file])).code).toBe(0);
    const lines = readFileSync(file, "utf8").trim().split("\n");
    expect(JSON.parse(lines[0]!)).toEqual({ format: "hostgate-audit-v1", type: "header" });
    expect(lines.filter((l) => l.includes('"type":"entry"'))).toHaveLength(13);
    expect((await run(["audit", "verify", "--state-dir", dir, "--jsonl", file])).code).toBe(3); // checks out, not anchored
    writeFileSync(file, lines.filter((_, i) => i !== 3).join("\n"));
    const broken = await run(["audit", "verify", "--state-dir", dir, "--jsonl", file]);
    expect(broken).toMatchObject({ code: 1 });
    expect(broken.out).toMatch(/^broken: missing_entries at seq 3/);
  });

  it("--checkpoints finds an older database that was put back (truncated, exit 1)", async () => {
    const copy = join(tmp(), "cp.jsonl");
    const dir = await makeChain(copy);
    const old = join(tmp(), "old.db");
    writeFileSync(old, readFileSync(join(dir, "audit.db")));
    const store = openAuditStore(dir, { checkpointEvery: 5, checkpointIdleMs: 0, checkpointCopy: { type: "file", path: copy } });
    for (let i = 0; i < 6; i++) await store.append({ kind: "step", actor: "uid:0", payload: { i } });
    store.close();
    const r = await run(["audit", "verify", "--state-dir", dir, "--db", old, "--checkpoints", copy, "--json"]);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out)).toMatchObject({ status: "broken", reason: "truncated", first_bad_seq: 14 });
  });

  it("exit 2 without a key, with a missing database, and for a bad --since", async () => {
    const dir = await makeChain();
    const noKey = await run(["audit", "verify", "--state-dir", tmp(), "--db", join(dir, "audit.db")]);
    expect(noKey.code).toBe(2);
    expect(noKey.out).toMatch(/^cannot verify \(no_key\)/);
    expect((await run(["audit", "verify", "--state-dir", tmp()])).out).toMatch(/^cannot verify \(unreadable_store\)/);
    const bad = await run(["audit", "verify", "--state-dir", dir, "--since", "zero"]);
    expect(bad.code).toBe(2);
    expect(bad.out).toMatch(/^cannot verify \(bad_input\): --since must be a positive integer/);
  });

  it("public-key fails clearly when there is no key", async () => {
    const r = await run(["audit", "public-key", "--state-dir", tmp()]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/error \(not_found\): no audit signing key/);
  });

  it("default state dir follows HOSTGATE_STATE_DIR, then XDG_STATE_HOME", () => {
    expect(defaultStateDir({ HOSTGATE_STATE_DIR: "/srv/hg", XDG_STATE_HOME: "/x" })).toBe("/srv/hg");
    expect(defaultStateDir({ XDG_STATE_HOME: "/x" })).toBe("/x/hostgate");
  });
});
