import { createGunzip } from "node:zlib";
import { HostgateError } from "../core/errors.ts";
import { SKILL_LIMITS } from "../core/skills/limits.ts";
import { ArchiveRefusal, SkillTarReader } from "../core/skills/tar.ts";
import type { TreeFile } from "../core/skills/tree.ts";
import type { Worker } from "node:worker_threads";
import { startWorker, workerUrl } from "./ts-worker.ts";

/** What the unpack worker answers for job `id`: the files, or why the archive is refused. */
export type UnpackReply = { id: number; ok: true; files: TreeFile[] } | { id: number; ok: false; message: string };

/** A job for the unpack worker: the archive bytes and the skill's name. */
export interface UnpackJob {
  id: number;
  bytes: Uint8Array;
  name: string;
}

const SLICE = 64 * 1024;

/**
 * Reads one archive in this thread: gunzip (when it starts with the gzip magic) as a stream, every
 * decompressed byte pushed to {@link SkillTarReader}, which counts it against the caps. Decompression stops at
 * the first refusal and at the end-of-archive marker, so zero padding after it is never inflated. Rejects
 * with ArchiveRefusal. Called by the worker (skills-unpack-worker.ts); {@link unpackArchive} is the entry point.
 */
export async function readArchive(bytes: Uint8Array, name: string): Promise<TreeFile[]> {
  const reader = new SkillTarReader(name);
  if (!(bytes[0] === 0x1f && bytes[1] === 0x8b)) {
    for (let off = 0; off < bytes.length && !reader.ended; off += SLICE) reader.push(bytes.subarray(off, off + SLICE));
    return reader.result();
  }
  return await new Promise<TreeFile[]>((resolve, reject) => {
    const z = createGunzip({ chunkSize: SLICE });
    let settled = false;
    const settle = (err: Error | null): void => {
      if (settled) return;
      settled = true;
      z.removeAllListeners("data");
      z.destroy();
      if (err) { reject(err); return; }
      try {
        resolve(reader.result());
      } catch (e) {
        reject(e instanceof Error ? e : new Error(String(e)));
      }
    };
    z.on("data", (c: Buffer) => {
      if (settled) return;
      try {
        reader.push(c);
      } catch (err) {
        settle(err as Error);
        return;
      }
      if (reader.ended) settle(null);
    });
    z.on("end", () => { settle(null); });
    z.on("error", (err) => { settle(new ArchiveRefusal(`the gzip stream is invalid: ${err.message}`)); });
    z.end(bytes);
  });
}

/** A running unpack worker and the jobs it owes an answer. */
interface Unpacker {
  worker: Worker;
  waiting: Map<number, { resolve: (r: UnpackReply) => void; reject: (e: Error) => void }>;
}

/** The unpack worker: one thread, started on first use, kept while it behaves, unref'd (never keeps the process alive). */
let current: Unpacker | null = null;
let nextId = 1;

function unpacker(): Unpacker {
  if (current) return current;
  const worker = startWorker(workerUrl(import.meta.url, "skills-unpack-worker"), {
    resourceLimits: { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 32 },
    stdout: false,
    stderr: false,
  });
  worker.unref();
  const u: Unpacker = { worker, waiting: new Map() };
  worker.on("message", (m: UnpackReply) => { const p = u.waiting.get(m.id); u.waiting.delete(m.id); p?.resolve(m); });
  worker.on("error", (err) => { retire(u, err); });
  worker.on("exit", (code) => { retire(u, new Error(`exit ${code}`)); });
  current = u;
  return u;
}

/** Takes a worker out of service: no new job goes to it, every job it still owes fails with `err`, the thread stops. */
function retire(u: Unpacker, err: Error): void {
  if (current === u) current = null;
  for (const [id, p] of u.waiting) { u.waiting.delete(id); p.reject(err); }
  void u.worker.terminate();
}

/**
 * Unpacks a skill archive (tar, optionally gzipped) in memory, off the daemon's event loop: in a worker thread
 * with a bounded heap and a wall-clock budget per archive (`SKILL_LIMITS.unpackMs`; past it the thread is
 * terminated, and a new one serves the next archive), so no archive can stall the daemon's sockets (issue 21,
 * T3-23). Nothing touches the disk. Rules and caps: core/skills/tar.ts. Throws HostgateError
 * `archive_refused` (refused entry, cap, invalid tar or gzip, over budget).
 */
export async function unpackArchive(bytes: Uint8Array, name: string, opts: { timeoutMs?: number } = {}): Promise<TreeFile[]> {
  const timeoutMs = opts.timeoutMs ?? SKILL_LIMITS.unpackMs;
  const refused = (message: string): HostgateError => new HostgateError("archive_refused", `The archive of ${name} is refused: ${message}.`, { hint: "Skills hold regular files only, under <name>/, without links or .. paths, within the size caps." });
  // A copy with its own ArrayBuffer (a Buffer's slice() shares the pool), transferred to the worker.
  const copy = new Uint8Array(bytes);
  const id = nextId++;
  const u = unpacker();
  const reply = await new Promise<UnpackReply>((resolve, reject) => {
    const timer = setTimeout(() => {
      u.waiting.delete(id);
      reject(refused(`unpacking took longer than ${timeoutMs} ms`));
      retire(u, new Error("another archive ran over its time budget"));
    }, timeoutMs);
    u.waiting.set(id, {
      resolve: (r) => { clearTimeout(timer); resolve(r); },
      reject: (e) => { clearTimeout(timer); reject(refused(`the unpacker stopped (${e.message})`)); },
    });
    const job: UnpackJob = { id, bytes: copy, name };
    u.worker.postMessage(job, [copy.buffer]);
  });
  if (!reply.ok) throw refused(reply.message);
  return reply.files;
}
