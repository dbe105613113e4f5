import { closeSync, existsSync, fstatSync, fsyncSync, mkdirSync, openSync, readFileSync, readSync, statSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import { canonicalJson } from "../core/audit/canonical.ts";
import type { Checkpoint } from "../core/audit/entry.ts";
import { HostgateError } from "../core/errors.ts";

/**
 * The "second place" checkpoints are copied to (issue 5), so that replacing or truncating the database cannot
 * also remove the evidence of how far the chain had grown. Implemented: `file` (append to that file) and
 * `directory` (append to `hostgate-audit-checkpoints.jsonl` inside it, e.g. on another mount). `syslog` and
 * `journald` are not implemented and are refused with a configuration error.
 */
export type CheckpointCopyTarget = { type: "file"; path: string } | { type: "directory"; path: string } | { type: "syslog" } | { type: "journald" };

/** File name used inside a `directory` target. */
export const CHECKPOINT_COPY_FILE = "hostgate-audit-checkpoints.jsonl";

/**
 * One line of the copy: the checkpoint plus `chain`, the hash of the chain's genesis entry, so several chains can
 * share one file. Canonical JSON, one per line, appended and fsynced.
 */
export interface CheckpointCopyLine extends Checkpoint {
  chain: string;
}

/** Resolves a target to the file checkpoints are appended to; throws `invalid_params` for syslog/journald. */
export function checkpointCopyPath(target: CheckpointCopyTarget): string {
  switch (target.type) {
    case "file":
      return target.path;
    case "directory":
      return join(target.path, CHECKPOINT_COPY_FILE);
    default:
      throw new HostgateError("invalid_params", `audit checkpoint copy target "${target.type}" is not supported by this build`, {
        hint: 'Configure the checkpoint copy as { type: "file", path } or { type: "directory", path } (ideally on another mount).',
      });
  }
}

/** Appends `cp` to the copy and fsyncs it. Throws `audit_unavailable` when the copy cannot be written. */
export function writeCheckpointCopy(target: CheckpointCopyTarget, chain: string, cp: Checkpoint): void {
  const file = checkpointCopyPath(target);
  try {
    if (target.type === "directory") mkdirSync(target.path, { recursive: true });
    else mkdirSync(dirname(file), { recursive: true });
    const fd = openSync(file, "a+", 0o644);
    try {
      const size = fstatSync(fd).size;
      const lastByte = Buffer.alloc(1);
      const torn = size > 0 && readSync(fd, lastByte, 0, 1, size - 1) === 1 && lastByte[0] !== 0x0a;
      writeSync(fd, `${torn ? "\n" : ""}${canonicalJson({ ...cp, chain })}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    throw new HostgateError("audit_unavailable", `cannot write the audit checkpoint copy ${file}: ${(err as Error).message}`, {
      hint: "Check that the configured checkpoint copy location exists, is writable and has free space.",
      cause: err,
    });
  }
}

/**
 * Reads the checkpoints of chain `chain` (null: all) from a copy file (missing file → []). Lines that are not
 * checkpoints are skipped: a write cut short by a crash leaves a torn line, and deleting lines is anyway within an
 * attacker's reach, so a torn line carries no evidence. Throws `invalid_params` if the file cannot be read.
 */
export function readCheckpointCopy(file: string, chain: string | null): Checkpoint[] {
  if (!existsSync(file) || !statSync(file).isFile()) return [];
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new HostgateError("invalid_params", `cannot read the checkpoint copy ${file}: ${(err as Error).message}`, { cause: err });
  }
  const out: Checkpoint[] = [];
  for (const line of text.split("\n")) {
    const cp = parseLine(line);
    if (cp !== null && (chain === null || cp.chain === chain)) out.push({ seq: cp.seq, hash: cp.hash, ts: cp.ts, key_id: cp.key_id, signature: cp.signature });
  }
  return out;
}

function parseLine(line: string): CheckpointCopyLine | null {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return null;
  }
  if (v === null || typeof v !== "object") return null;
  const r = v as Record<string, unknown>;
  if (!Number.isSafeInteger(r.seq) || !Number.isSafeInteger(r.ts)) return null;
  for (const k of ["hash", "key_id", "signature", "chain"]) if (typeof r[k] !== "string") return null;
  return r as unknown as CheckpointCopyLine;
}
