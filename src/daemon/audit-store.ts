import { existsSync, realpathSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { pinAuditKey, readPin } from "../adapters/audit-pin.ts";
import { checkpointCopyPath } from "../adapters/audit-checkpoint-copy.ts";
import { auditPaths, SqliteAuditStore, type SqliteAuditStoreOptions } from "../adapters/audit-sqlite.ts";
import { Ed25519Signer } from "../adapters/signer-ed25519.ts";
import { KIND_GENESIS, KIND_KEY_ROTATION } from "../core/audit/entry.ts";
import { HostgateError } from "../core/errors.ts";
import { isWithinRoot } from "../core/paths.ts";

/**
 * The daemon's choice of audit signer and trust (split out of adapters/audit-sqlite.ts, issue 9): opens
 * (creating on first start) the Ed25519 signing key under `<stateDir>/audit-keys/` and the store at
 * `<stateDir>/audit.db`. Other options as in {@link SqliteAuditStoreOptions}. With `configDir`, the key is
 * pinned outside the state directory at first start and a key the pin does not vouch for is refused. With
 * `readOnlyFallback` (default false), a store that exists but cannot be opened for writing is opened
 * read-only instead (`readOnlyReason` says why, `onWarning` is told): history and verify keep working,
 * every append is refused.
 */
export function openAuditStore(stateDir: string, opts: Omit<SqliteAuditStoreOptions, "dbPath" | "signer" | "pinnedKeys" | "checkpointCopyOutside"> & { readOnlyFallback?: boolean; configDir?: string } = {}): SqliteAuditStore {
  const { dbPath, keyDir } = auditPaths(stateDir);
  const checkpointCopyOutside = opts.checkpointCopy ? copyIsOutside(checkpointCopyPath(opts.checkpointCopy), stateDir) : false;
  try {
    const signer = Ed25519Signer.open(stateDir);
    const store = SqliteAuditStore.open({ ...opts, dbPath, signer, checkpointCopyOutside });
    if (opts.configDir !== undefined) {
      // Pin the key outside the state directory at first start; refuse a key the pin does not vouch for.
      try {
        const announcements = [...store.query({ kind: KIND_GENESIS, limit: 10 }), ...store.query({ kind: KIND_KEY_ROTATION, limit: 10_000 })];
        store.setPinnedKeys(pinAuditKey({ configDir: opts.configDir, stateDir, signer, announcements, warn: (l) => opts.onWarning?.(l) }));
      } catch (err) {
        store.close();
        throw err;
      }
    }
    return store;
  } catch (err) {
    if (opts.readOnlyFallback !== true || !(err instanceof HostgateError) || err.code !== "audit_unavailable" || !existsSync(dbPath)) throw err;
    opts.onWarning?.(`audit store opened read-only: ${err.message}`);
    const ro = SqliteAuditStore.openReadOnly({ dbPath, keyDir, checkpointCopy: opts.checkpointCopy, verifyWorkers: opts.verifyWorkers }, err.message);
    if (opts.configDir !== undefined) ro.setPinnedKeys(readPin(opts.configDir, stateDir));
    return ro;
  }
}

/** Whether the copy file lies outside the state directory (both resolved where they exist). */
function copyIsOutside(copyFile: string, stateDir: string): boolean {
  const real = (p: string): string => {
    try {
      return realpathSync(p);
    } catch {
      return resolve(p);
    }
  };
  return !isWithinRoot(join(real(dirname(copyFile)), basename(copyFile)), real(stateDir));
}
