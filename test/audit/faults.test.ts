import { afterAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { openAuditStore } from "../../src/daemon/audit-store.ts";
import type { SqliteAuditStore } from "../../src/adapters/audit-sqlite.ts";
import { peerMissing } from "../helpers/peers.ts";
import { tmp } from "./helpers.ts";

// Real faults where the kernel allows it: a 256 KiB tmpfs that fills up, and a tmpfs remounted read-only (needs
// root and mount(2); skipped otherwise). The size cap (`maxDbBytes`, SQLite max_page_count) runs everywhere.
const mounts: string[] = [];
function mountTmpfs(size: string): string | null {
  const dir = tmp("hostgate-audit-mnt-");
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", dir], { stdio: "ignore" });
  } catch {
    return null;
  }
  mounts.push(dir);
  return dir;
}
afterAll(() => {
  for (const m of mounts) execFileSync("umount", ["-l", m], { stdio: "ignore" });
});
const canMount = !peerMissing("audit faults on a real tmpfs", mountTmpfs("64k") === null ? "mount(2) of a tmpfs is not permitted here (needs root)" : null);

const big = (i: number) => ({ i, blob: "x".repeat(2000) });

/** Appends until the store refuses; returns the refusal. */
async function fillUntilRefused(store: SqliteAuditStore): Promise<unknown> {
  for (let i = 0; i < 100_000; i++) {
    try {
      await store.append({ kind: "fill", actor: "x", payload: big(i) }, { durable: true });
    } catch (err) {
      return err;
    }
  }
  throw new Error("the store never filled up");
}

async function expectFailClosedButReadable(store: SqliteAuditStore): Promise<void> {
  const before = store.query({ order: "desc", limit: 1 })[0]!.seq;
  const err = await store.append({ kind: "execute.intent", actor: "uid:0", payload: big(-1) }, { durable: true }).catch((e: unknown) => e);
  expect(err).toMatchObject({ code: "audit_unavailable" });
  expect((err as Error).message).toMatch(/refused because it cannot be audited/);
  // Read-only use keeps working, and nothing half-written appears.
  expect(store.query({ order: "desc", limit: 1 })[0]!.seq).toBe(before);
  expect(store.query({ kind: "execute.intent" })).toEqual([]);
}

describe("fault injection: mutations fail closed, reads keep working", () => {
  it("a size-capped store (SQLite max_page_count) that is full", async () => {
    const store = openAuditStore(tmp(), { checkpointIdleMs: 0, maxDbBytes: 256 * 1024 });
    const err = await fillUntilRefused(store);
    expect(err).toMatchObject({ code: "audit_unavailable" });
    expect((err as Error).message).toMatch(/full/);
    await expectFailClosedButReadable(store);
    expect(await store.verify({ signatures: false })).toMatchObject({ status: "unanchored", reason: "key_not_pinned" });
    store.close();
  });

  it.skipIf(!canMount)("a real full disk (256 KiB tmpfs)", async () => {
    const dir = mountTmpfs("256k")!;
    const store = openAuditStore(dir, { checkpointIdleMs: 0 });
    const err = await fillUntilRefused(store);
    expect(err).toMatchObject({ code: "audit_unavailable" });
    await expectFailClosedButReadable(store);
    expect(await store.verify({ signatures: false })).toMatchObject({ status: "unanchored", reason: "key_not_pinned" });
    store.close();
  });

  it.skipIf(!canMount)("a store on a read-only filesystem: refused for writing, or opened read-only on request", async () => {
    const dir = mountTmpfs("4m")!;
    const store = openAuditStore(dir, { checkpointIdleMs: 0 });
    for (let i = 0; i < 20; i++) await store.append({ kind: "step", actor: "x", payload: { i } }, { durable: i === 19 });
    store.close();
    execFileSync("mount", ["-o", "remount,ro", dir]);
    expect(() => openAuditStore(dir, { checkpointIdleMs: 0 })).toThrow(expect.objectContaining({ code: "audit_unavailable" }));
    const warnings: string[] = [];
    const ro = openAuditStore(dir, { checkpointIdleMs: 0, readOnlyFallback: true, onWarning: (w) => warnings.push(w) });
    expect(ro.readOnlyReason).toMatch(/cannot open/);
    expect(warnings).toHaveLength(1);
    const err = await ro.append({ kind: "execute.intent", actor: "uid:0", payload: {} }, { durable: true }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "audit_unavailable" });
    expect((err as Error).message).toMatch(/read-only.*refused/);
    expect(() => ro.checkpointNow()).toThrow(expect.objectContaining({ code: "audit_unavailable" }));
    expect(ro.query({ kind: "step" })).toHaveLength(20);
    expect(await ro.verify()).toMatchObject({ status: "unanchored", reason: "key_not_pinned", last_seq: 21 });
    ro.close();
  });

  it.skipIf(!canMount)("a store that cannot be opened for writing refuses to start with audit_unavailable", () => {
    const dir = mountTmpfs("1m")!;
    execFileSync("mount", ["-o", "remount,ro", dir]);
    expect(() => openAuditStore(join(dir, "state"), { checkpointIdleMs: 0 })).toThrow(expect.objectContaining({ code: "audit_unavailable" }));
  });
});
