import { describe, expect, it } from "vitest";
import { chmodSync, existsSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { SqliteAuditStore } from "../../src/adapters/audit-sqlite.ts";
import { openAuditStore } from "../../src/daemon/audit-store.ts";
import { verifyAuditDb } from "../../src/adapters/audit-verify.ts";
import { Ed25519Signer, readPublicKeyDir } from "../../src/adapters/signer-ed25519.ts";
import { rotationProofInput } from "../../src/core/audit/entry.ts";
import { HostgateError } from "../../src/core/errors.ts";
import { tmp } from "./helpers.ts";

const idle = { checkpointIdleMs: 0 };

describe("SqliteAuditStore", () => {
  it("creates a 0600 key and a genesis entry on first start, and keeps the key on restart", async () => {
    const dir = tmp();
    const store = openAuditStore(dir, idle);
    const keyFile = join(dir, "audit-keys", "current.key");
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, "audit-keys")).mode & 0o777).toBe(0o700);
    const [genesis] = store.query();
    expect(genesis).toMatchObject({ seq: 1, kind: "audit.genesis", prev_hash: "0".repeat(64) });
    const keyId = genesis!.key_id;
    await store.append({ kind: "plan.created", actor: "uid:1000", payload: { txid: "t1" } });
    store.close();
    const again = openAuditStore(dir, idle);
    expect(again.query().map((e) => [e.seq, e.key_id])).toEqual([[1, keyId], [2, keyId]]);
    expect(await again.verify()).toMatchObject({ status: "unanchored", reason: "key_not_pinned", last_seq: 2 });
    again.close();
  });

  it("refuses a signing key readable by others, and a key that does not match the chain", () => {
    const dir = tmp();
    openAuditStore(dir, idle).close();
    const keyFile = join(dir, "audit-keys", "current.key");
    chmodSync(keyFile, 0o644);
    expect(() => openAuditStore(dir, idle)).toThrow(expect.objectContaining({ code: "permission_denied", hint: `Run: chmod 600 ${keyFile}` }));
    chmodSync(keyFile, 0o600);
    const other = Ed25519Signer.open(tmp());
    expect(() => SqliteAuditStore.open({ dbPath: join(dir, "audit.db"), signer: other, ...idle })).toThrow(HostgateError);
  });

  it("assigns consecutive seqs in call order and filters queries", async () => {
    let now = 1_000;
    const store = openAuditStore(tmp(), { ...idle, clock: () => now });
    const results = await Promise.all([
      store.append({ kind: "plan.created", actor: "uid:1", payload: { n: 1 } }),
      store.append({ kind: "approve", actor: "admin:alice", payload: { n: 2 } }),
    ]);
    now = 5_000;
    results.push(await store.append({ kind: "execute.intent", actor: "uid:1", payload: { n: 3 } }, { durable: true }));
    expect(results.map((r) => r.seq)).toEqual([2, 3, 4]);
    expect(store.query({ kind: "approve" }).map((e) => e.seq)).toEqual([3]);
    expect(store.query({ actor: "uid:1" }).map((e) => e.seq)).toEqual([2, 4]);
    expect(store.query({ since_ts: 5_000 }).map((e) => e.seq)).toEqual([4]);
    expect(store.query({ since_seq: 3, until_seq: 3 }).map((e) => e.seq)).toEqual([3]);
    expect(store.query({ limit: 2, order: "desc" }).map((e) => e.seq)).toEqual([4, 3]);
    expect(store.query({ since_seq: 2 })[0]?.hash).toBe(results[0]?.hash);
    store.close();
  });

  it("rejects bad kinds, actors and payloads without consuming a seq", async () => {
    const store = openAuditStore(tmp(), idle);
    await expect(store.append({ kind: "Bad Kind", actor: "x", payload: {} })).rejects.toMatchObject({ code: "invalid_params" });
    await expect(store.append({ kind: "ok", actor: "x".repeat(300), payload: {} })).rejects.toMatchObject({ code: "invalid_params" });
    await expect(store.append({ kind: "ok", actor: "x", payload: { f: 0.5 } })).rejects.toMatchObject({ code: "invalid_params" });
    expect((await store.append({ kind: "ok", actor: "x", payload: {} })).seq).toBe(2);
    store.close();
  });

  it("is append-only: UPDATE and DELETE are refused by triggers", async () => {
    const dir = tmp();
    const store = openAuditStore(dir, idle);
    await store.append({ kind: "ok", actor: "x", payload: {} }, { durable: true });
    store.checkpointNow();
    const db = new Database(join(dir, "audit.db"));
    expect(() => db.prepare("UPDATE audit_entries SET actor = 'y' WHERE seq = 2").run()).toThrow(/append-only/);
    expect(() => db.prepare("DELETE FROM audit_entries WHERE seq = 2").run()).toThrow(/append-only/);
    expect(() => db.prepare("DELETE FROM audit_checkpoints").run()).toThrow(/append-only/);
    db.close();
    store.close();
  });

  it("redacts receipts, tokens and configured patterns before signing: they never reach the database files", async () => {
    const dir = tmp();
    const store = openAuditStore(dir, { ...idle, secretPatterns: ["hgr_[A-Za-z0-9]{16,}"] });
    const secrets = ["hgr_Q3JlYXRlZEJ5VGVzdA", "tok-9f8e7d6c5b4a", "pw-correct-horse", "s3cr3t-in-args"];
    await store.append({ kind: "execute.result", actor: "uid:0", payload: { receipt: secrets[0]!, token: secrets[1]!, nested: { db_password: secrets[2]! }, argv: ["mysql", `--password=${secrets[3]!}`], note: `receipt ${secrets[0]!} was used` } }, { durable: true });
    await store.append({ kind: "approve", actor: `admin via ${secrets[0]!}`, payload: {} }, { durable: true });
    const [entry, approve] = store.query({ since_seq: 2 });
    expect(JSON.parse(entry!.payload)).toEqual({ receipt: "[redacted:secret_field]", token: "[redacted:secret_field]", nested: { db_password: "[redacted:secret_field]" }, argv: ["mysql", "--password=[redacted:credential_flag]"], note: "receipt [redacted:receipt] was used" });
    expect(approve!.actor).toBe("admin via [redacted:receipt]");
    store.close();
    const bytes = readdirSync(dir).filter((f) => f.startsWith("audit.db")).map((f) => readFileSync(join(dir, f)).toString("latin1")).join("");
    expect(bytes).toContain("[redacted:");
    for (const s of secrets) expect(bytes).not.toContain(s);
  });

  it("writes a checkpoint every N entries and copies it to the second place", async () => {
    const copy = join(tmp(), "elsewhere", "cp.jsonl");
    const store = openAuditStore(tmp(), { checkpointEvery: 5, checkpointIdleMs: 0, checkpointCopy: { type: "file", path: copy } });
    for (let i = 0; i < 11; i++) await store.append({ kind: "step", actor: "x", payload: { i } });
    const tenth = store.query({ since_seq: 10, until_seq: 10 })[0]!;
    expect(store.latestCheckpoint()).toMatchObject({ seq: 10, hash: tenth.hash, key_id: tenth.key_id });
    const lines = readFileSync(copy, "utf8").trim().split("\n").map((l) => JSON.parse(l) as { seq: number; hash: string; chain: string });
    expect(lines.map((l) => l.seq)).toEqual([5, 10]);
    expect(lines[1]!.hash).toBe(tenth.hash);
    expect(lines[0]!.chain).toBe(store.query({ limit: 1 })[0]!.hash);
    store.close();
  });

  it("writes a checkpoint when idle once the head has moved", async () => {
    const store = openAuditStore(tmp(), { checkpointEvery: 1000, checkpointIdleMs: 20 });
    await store.append({ kind: "step", actor: "x", payload: {} });
    const head = await store.append({ kind: "step", actor: "x", payload: {} });
    for (let waited = 0; store.latestCheckpoint()?.seq !== head.seq && waited < 2000; waited += 10) await new Promise((r) => setTimeout(r, 10));
    expect(store.latestCheckpoint()).toMatchObject({ seq: head.seq, hash: head.hash });
    store.close();
  });

  it("refuses syslog and journald checkpoint copies with a configuration error", () => {
    expect(() => openAuditStore(tmp(), { ...idle, checkpointCopy: { type: "syslog" } })).toThrow(/not supported/);
    expect(() => openAuditStore(tmp(), { ...idle, checkpointCopy: { type: "journald" } })).toThrow(expect.objectContaining({ code: "invalid_params" }));
  });

  it("verifies from a seq, and reports cannot_verify without a key or with an unreadable store", async () => {
    const dir = tmp();
    const store = openAuditStore(dir, idle);
    for (let i = 0; i < 6; i++) await store.append({ kind: "step", actor: "x", payload: { i } });
    expect(await store.verify({ since_seq: 5 })).toMatchObject({ status: "unanchored", reason: "key_not_pinned", last_seq: 7, checked: 3 });
    expect(await store.verify({ signatures: false })).toMatchObject({ status: "unanchored", reason: "key_not_pinned", checked: 7, signatures_checked: false });
    store.close();
    expect(await verifyAuditDb(join(dir, "audit.db"), { trusted: new Map() })).toMatchObject({ status: "cannot_verify", why: "no_key" });
    const junk = join(tmp(), "junk.db");
    writeFileSync(junk, "this is not a database");
    expect(await verifyAuditDb(junk, { trusted: readPublicKeyDir(join(dir, "audit-keys")) })).toMatchObject({ status: "cannot_verify", why: "unreadable_store" });
  });
});

describe("key rotation", () => {
  it("links old and new keys in a signed entry; either key alone verifies the whole chain", async () => {
    const dir = tmp();
    const store = openAuditStore(dir, idle);
    await store.append({ kind: "before", actor: "x", payload: {} });
    const rot = await store.rotateKey();
    expect(rot.new_key_id).not.toBe(rot.old_key_id);
    await store.append({ kind: "after", actor: "x", payload: {} });
    const entries = store.query();
    expect(entries.map((e) => e.key_id)).toEqual([rot.old_key_id, rot.old_key_id, rot.old_key_id, rot.new_key_id]);
    expect(await store.verify()).toMatchObject({ status: "unanchored", reason: "key_not_pinned", last_seq: 4 });
    store.close();
    const keys = readPublicKeyDir(join(dir, "audit-keys"));
    for (const only of [rot.old_key_id, rot.new_key_id]) {
      const r = await verifyAuditDb(join(dir, "audit.db"), { trusted: new Map([[only, keys.get(only)!]]), workers: 0 });
      expect(r).toMatchObject({ status: "intact", last_seq: 4 });
    }
    const reopened = openAuditStore(dir, idle);
    expect((await reopened.append({ kind: "later", actor: "x", payload: {} })).seq).toBe(5);
    expect(reopened.query({ since_seq: 5 })[0]!.key_id).toBe(rot.new_key_id);
    reopened.close();
  });

  it("a key prepared but never recorded (crash mid-rotation) is discarded on restart", () => {
    const dir = tmp();
    const store = openAuditStore(dir, idle);
    const keyId = store.query()[0]!.key_id;
    store.close();
    Ed25519Signer.open(dir).prepareRotation(rotationProofInput);
    expect(existsSync(join(dir, "audit-keys", "next.key"))).toBe(true);
    const again = openAuditStore(dir, idle);
    expect(existsSync(join(dir, "audit-keys", "next.key"))).toBe(false);
    again.close();
    expect(Ed25519Signer.open(dir).keyId).toBe(keyId);
  });
});

describe("parallel verification with rotations", () => {
  it("follows rotations inside and at the edge of worker ranges", async () => {
    const dir = tmp();
    const store = openAuditStore(dir, idle);
    // 40 entries: genesis, rotations at seq 20 (the first entry of the second of two ranges) and at seq 31.
    for (let i = 2; i < 20; i++) await store.append({ kind: "step", actor: "x", payload: { i } });
    const first = await store.rotateKey();
    for (let i = 21; i < 31; i++) await store.append({ kind: "step", actor: "x", payload: { i } });
    await store.rotateKey();
    for (let i = 32; i <= 40; i++) await store.append({ kind: "step", actor: "x", payload: { i } });
    store.close();
    expect(first.seq).toBe(20);
    const trusted = readPublicKeyDir(join(dir, "audit-keys"));
    const db = join(dir, "audit.db");
    for (const workers of [0, 2, 3]) {
      expect(await verifyAuditDb(db, { trusted, workers, parallel_threshold: 1 })).toMatchObject({ status: "intact", last_seq: 40, checked: 40 });
    }
  });
});
