import { afterEach, describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command } from "commander";
import { openAuditStore } from "../adapters/audit-sqlite.ts";
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

async function makeChain(copy?: string): Promise<string> {
  const dir = tmp();
  const store = openAuditStore(dir, { checkpointEvery: 5, checkpointIdleMs: 0, ...(copy ? { checkpointCopy: { type: "file", path: copy } } : {}) });
  for (let i = 0; i < 12; i++) await store.append({ kind: "step", actor: "uid:0", payload: { i } });
  store.close();
  return dir;
}

describe("hostgate audit", () => {
  it("verify: intact with exit 0 (state dir keys), JSON output, and --since", async () => {
    const dir = await makeChain();
    const human = await run(["audit", "verify", "--state-dir", dir]);
    expect(human).toMatchObject({ code: 0, out: "intact: 13 entries up to seq 13, anchored by a signed checkpoint up to seq 13\n" });
    const json = await run(["audit", "verify", "--state-dir", dir, "--since", "10", "--json"]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.out)).toMatchObject({ status: "intact", last_seq: 13, checked: 4 });
  });

  it("verify works offline on a copy of the database with an exported public key", async () => {
    const dir = await makeChain();
    const pem = await run(["audit", "public-key", "--state-dir", dir]);
    expect(pem.out).toMatch(/^-----BEGIN PUBLIC KEY-----\n[\s\S]+-----END PUBLIC KEY-----\n$/);
    const elsewhere = tmp();
    writeFileSync(join(elsewhere, "key.pem"), pem.out);
    writeFileSync(join(elsewhere, "copy.db"), readFileSync(join(dir, "audit.db")));
    const r = await run(["audit", "verify", "--db", join(elsewhere, "copy.db"), "--public-key", join(elsewhere, "key.pem"), "--json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ status: "intact", last_seq: 13 });
  });

  it("export writes JSON Lines that verify --jsonl accepts, and a cut export is reported broken (exit 1)", async () => {
    const dir = await makeChain();
    const file = join(tmp(), "audit.jsonl");
    expect((await run(["audit", "export", "--state-dir", dir, "--out", file])).code).toBe(0);
    const lines = readFileSync(file, "utf8").trim().split("\n");
    expect(JSON.parse(lines[0]!)).toEqual({ format: "hostgate-audit-v1", type: "header" });
    expect(lines.filter((l) => l.includes('"type":"entry"'))).toHaveLength(13);
    expect((await run(["audit", "verify", "--state-dir", dir, "--jsonl", file])).code).toBe(0);
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
