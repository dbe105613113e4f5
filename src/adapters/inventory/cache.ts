import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { HostRecord } from "../../core/inventory/record.ts";

/**
 * Listing cache per backend: in memory, and also in `cache_dir` when configured (one JSON file per backend
 * and settings, written atomically, mode 0600). An entry is fresh while younger than the ttl in force.
 */
export class InventoryCache {
  private readonly mem = new Map<string, { at: number; records: HostRecord[] }>();

  private file(dir: string, key: string): string {
    return join(dir, `inventory-${createHash("sha256").update(key).digest("hex").slice(0, 32)}.json`);
  }

  /** The records stored for `key` if younger than `ttlMs` (memory first, then `dir`). */
  get(key: string, ttlMs: number, dir: string | undefined, now: number): HostRecord[] | null {
    if (ttlMs <= 0) return null;
    let hit = this.mem.get(key);
    if (!hit && dir) {
      try {
        const parsed = JSON.parse(readFileSync(this.file(dir, key), "utf8")) as { key: string; at: number; records: HostRecord[] };
        if (parsed.key === key && Array.isArray(parsed.records)) {
          hit = { at: parsed.at, records: parsed.records };
          this.mem.set(key, hit);
        }
      } catch {
        // no file or unreadable: a miss
      }
    }
    return hit && now - hit.at < ttlMs ? hit.records : null;
  }

  /** Stores a listing. A cache_dir that cannot be written is reported to the caller (the listing is still used). */
  set(key: string, records: HostRecord[], dir: string | undefined, now: number): string | null {
    this.mem.set(key, { at: now, records });
    if (!dir) return null;
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const f = this.file(dir, key);
      writeFileSync(`${f}.tmp`, JSON.stringify({ key, at: now, records }), { mode: 0o600 });
      renameSync(`${f}.tmp`, f);
      return null;
    } catch (e) {
      return `cache_dir ${dir} could not be written: ${(e as Error).message}`;
    }
  }
}
