import { beforeAll, describe, expect, it } from "vitest";
import { join } from "node:path";
import { readFileSync, writeFileSync } from "node:fs";
import type Database from "better-sqlite3";
import { openAuditStore } from "../../src/daemon/audit-store.ts";
import { verifyAuditDb, verifyAuditJsonl } from "../../src/adapters/audit-verify.ts";
import { CHECKPOINT_COPY_FILE, readCheckpointCopy } from "../../src/adapters/audit-checkpoint-copy.ts";
import { readPublicKeyDir } from "../../src/adapters/signer-ed25519.ts";
import { exportJsonl } from "../../src/cli/audit.ts";
import type { VerifyResult } from "../../src/core/audit/verify.ts";
import { allRows, attackerKey, copyDb, forgeCheckpoint, forgeEntry, forgeGenesis, insertRow, tamper, tmp } from "./helpers.ts";

// A chain of 31 entries (genesis + 30), checkpoints every 10 entries and at close, copied to a directory;
// plus a copy of the database taken when it had 15 entries ("older copy").
let stateDir: string;
let copyDir: string;
let olderCopy: string;
let genesisHash: string;

beforeAll(async () => {
  stateDir = tmp();
  copyDir = join(tmp(), "copies");
  let store = openAuditStore(stateDir, { checkpointEvery: 10, checkpointCopy: { type: "directory", path: copyDir }, checkpointIdleMs: 0 });
  for (let i = 2; i <= 15; i++) await store.append({ kind: "test.step", actor: "uid:0", payload: { i, text: `entry ${i}` } });
  store.close();
  olderCopy = join(tmp(), "older.db");
  copyDb(join(stateDir, "audit.db"), olderCopy);
  store = openAuditStore(stateDir, { checkpointEvery: 10, checkpointCopy: { type: "directory", path: copyDir }, checkpointIdleMs: 0 });
  for (let i = 16; i <= 31; i++) await store.append({ kind: "test.step", actor: "uid:0", payload: { i, text: `entry ${i}` } }, { durable: i % 5 === 0 });
  genesisHash = store.query({ limit: 1 })[0]!.hash;
  store.close();
});

function victim(fn?: (db: Database.Database) => void): string {
  const path = join(tmp(), "audit.db");
  copyDb(join(stateDir, "audit.db"), path);
  if (fn) tamper(path, fn);
  return path;
}

async function check(path: string, workers: number): Promise<VerifyResult> {
  return verifyAuditDb(path, {
    trusted: readPublicKeyDir(join(stateDir, "audit-keys")),
    extra_checkpoints: readCheckpointCopy(join(copyDir, CHECKPOINT_COPY_FILE), genesisHash),
    workers,
    parallel_threshold: 1,
  });
}

const flip = (s: string, at: number): string => s.slice(0, at) + (s[at] === "A" ? "B" : "A") + s.slice(at + 1);

const matrix: [string, () => string, { reason: string; first_bad_seq: number }][] = [
  ["change one payload byte", () => victim((db) => db.prepare("UPDATE audit_entries SET payload = replace(payload, 'entry 12', 'entry 13') WHERE seq = 12").run()), { reason: "hash_mismatch", first_bad_seq: 12 }],
  ["change a hash", () => victim((db) => db.prepare("UPDATE audit_entries SET hash = (CASE substr(hash, 1, 1) WHEN '0' THEN '1' ELSE '0' END) || substr(hash, 2) WHERE seq = 12").run()), { reason: "hash_mismatch", first_bad_seq: 12 }],
  ["change a signature", () => victim((db) => {
    const sig = (db.prepare("SELECT signature FROM audit_entries WHERE seq = 12").get() as { signature: string }).signature;
    db.prepare("UPDATE audit_entries SET signature = ? WHERE seq = 12").run(flip(sig, 0));
  }), { reason: "bad_signature", first_bad_seq: 12 }],
  ["delete a middle row", () => victim((db) => db.prepare("DELETE FROM audit_entries WHERE seq = 12").run()), { reason: "missing_entries", first_bad_seq: 12 }],
  ["insert a forged row (linked, hashed, signed by an untrusted key)", () => victim((db) => {
    const rows = allRows(db);
    db.exec("UPDATE audit_entries SET pos = pos + 1000000 WHERE pos >= 12; UPDATE audit_entries SET pos = pos - 999999 WHERE pos >= 1000000");
    insertRow(db, 12, forgeEntry(rows[10]!, attackerKey(), "test.step", { i: 12, text: "forged" }));
  }), { reason: "bad_signature", first_bad_seq: 12 }],
  ["append a forged row claiming the real key id", () => victim((db) => {
    const rows = allRows(db);
    const forged = forgeEntry(rows.at(-1)!, attackerKey(), "test.step", { text: "forged" });
    insertRow(db, 32, { ...forged, key_id: rows[0]!.key_id });
  }), { reason: "hash_mismatch", first_bad_seq: 32 }],
  ["reorder two rows", () => victim((db) => db.exec("UPDATE audit_entries SET pos = -1 WHERE pos = 12; UPDATE audit_entries SET pos = 12 WHERE pos = 13; UPDATE audit_entries SET pos = 13 WHERE pos = -1")), { reason: "reordered", first_bad_seq: 12 }],
  ["reorder two rows across the boundary between two workers' ranges (positions 15|16)", () => victim((db) => db.exec("UPDATE audit_entries SET pos = -1 WHERE pos = 15; UPDATE audit_entries SET pos = 15 WHERE pos = 16; UPDATE audit_entries SET pos = 16 WHERE pos = -1")), { reason: "reordered", first_bad_seq: 15 }],
  ["truncate the tail below the last checkpoint", () => victim((db) => db.prepare("DELETE FROM audit_entries WHERE seq >= 26").run()), { reason: "truncated", first_bad_seq: 26 }],
  ["truncate the tail and the stored checkpoints (the copy still knows)", () => victim((db) => {
    db.prepare("DELETE FROM audit_entries WHERE seq >= 26").run();
    db.prepare("DELETE FROM audit_checkpoints WHERE seq >= 26").run();
  }), { reason: "truncated", first_bad_seq: 26 }],
  ["swap in another key (whole chain re-signed)", () => victim((db) => {
    const key = attackerKey();
    const rows = allRows(db);
    db.exec("DELETE FROM audit_entries; DELETE FROM audit_checkpoints");
    let prev = forgeGenesis(key);
    insertRow(db, 1, prev);
    for (const r of rows.slice(1)) {
      prev = forgeEntry(prev, key, r.kind, JSON.parse(r.payload));
      insertRow(db, prev.seq, prev);
    }
    const cp = forgeCheckpoint(prev, key);
    db.prepare("INSERT INTO audit_checkpoints (seq, ts, hash, key_id, signature) VALUES (?,?,?,?,?)").run(cp.seq, cp.ts, cp.hash, cp.key_id, cp.signature);
  }), { reason: "bad_signature", first_bad_seq: 1 }],
  ["replace the whole database with an older copy", () => {
    const path = join(tmp(), "audit.db");
    copyDb(olderCopy, path);
    return path;
  }, { reason: "truncated", first_bad_seq: 16 }],
];

describe("tamper matrix: each change is detected with the first offending seq", () => {
  it("the untouched chain is intact and anchored at its last checkpoint", async () => {
    expect(await check(victim(), 0)).toMatchObject({ status: "intact", last_seq: 31, anchored_seq: 31, checked: 31 });
  });
  for (const [name, make, expected] of matrix) {
    it(`${name} (in one thread)`, async () => {
      expect(await check(make(), 0)).toMatchObject({ status: "broken", ...expected });
    });
    it(`${name} (worker threads)`, async () => {
      expect(await check(make(), 2)).toMatchObject({ status: "broken", ...expected });
    });
  }
  it("without the copy, an older database looks intact but only anchored at its own last checkpoint", async () => {
    const path = join(tmp(), "audit.db");
    copyDb(olderCopy, path);
    const r = await verifyAuditDb(path, { trusted: readPublicKeyDir(join(stateDir, "audit-keys")), workers: 0 });
    expect(r).toMatchObject({ status: "intact", last_seq: 15, anchored_seq: 15 });
  });
  it("a forged checkpoint in the copy is reported as bad_signature at its seq", async () => {
    const file = join(tmp(), "copy.jsonl");
    const lines = readFileSync(join(copyDir, CHECKPOINT_COPY_FILE), "utf8").split("\n").filter(Boolean);
    const cp = JSON.parse(lines[1]!) as { signature: string; seq: number };
    writeFileSync(file, `${JSON.stringify({ ...cp, signature: flip(cp.signature, 0) })}\n`);
    const r = await verifyAuditDb(victim(), { trusted: readPublicKeyDir(join(stateDir, "audit-keys")), extra_checkpoints: readCheckpointCopy(file, genesisHash), workers: 0 });
    expect(r).toMatchObject({ status: "broken", reason: "bad_signature", first_bad_seq: cp.seq });
  });
});

describe("tamper matrix on a JSON Lines export", () => {
  async function exported(): Promise<string[]> {
    const file = join(tmp(), "export.jsonl");
    await exportJsonl(join(stateDir, "audit.db"), file, { out: () => undefined, err: () => undefined });
    return readFileSync(file, "utf8").split("\n").filter(Boolean);
  }
  async function verifyLines(lines: string[]): Promise<VerifyResult> {
    const file = join(tmp(), "t.jsonl");
    writeFileSync(file, `${lines.join("\n")}\n`);
    return verifyAuditJsonl(file, { trusted: readPublicKeyDir(join(stateDir, "audit-keys")), workers: 0 });
  }
  it("an untouched export verifies intact", async () => {
    expect(await verifyLines(await exported())).toMatchObject({ status: "intact", last_seq: 31, anchored_seq: 31 });
  });
  it("detects a changed byte, a deleted line, swapped lines and a cut tail", async () => {
    const lines = await exported(); // line 0 is the header; line n is seq n
    const changed = [...lines];
    changed[7] = changed[7]!.replace("entry 7", "entry 8");
    expect(await verifyLines(changed)).toMatchObject({ status: "broken", reason: "hash_mismatch", first_bad_seq: 7 });
    expect(await verifyLines(lines.filter((_, i) => i !== 9))).toMatchObject({ status: "broken", reason: "missing_entries", first_bad_seq: 9 });
    const swapped = [...lines];
    [swapped[20], swapped[21]] = [swapped[21]!, swapped[20]!];
    expect(await verifyLines(swapped)).toMatchObject({ status: "broken", reason: "reordered", first_bad_seq: 20 });
    expect(await verifyLines(lines.filter((l, i) => i < 28 || l.includes('"type":"checkpoint"')))).toMatchObject({ status: "broken", reason: "truncated", first_bad_seq: 28 });
  });
});
