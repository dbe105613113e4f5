import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { isAbsolute, join } from "node:path";
import { z } from "zod";
import { HostgateError } from "../core/errors.ts";
import { DIGEST_RE, treeDigest, type SkillDigest } from "../core/skills/digest.ts";
import { SKILL_LIMITS } from "../core/skills/limits.ts";
import { SKILL_NAME_RE } from "../core/skills/manifest.ts";
import { resolveUnderBase } from "../core/skills/registry-url.ts";
import { checkTreePath } from "../core/skills/tree.ts";
import type { RegistryIndex, ReleaseRecord, SkillRegistry } from "../ports/skill-store.ts";
import { sha256 } from "./skills-fs.ts";
import { unpackArchive } from "./skills-unpack.ts";

const Digest = z.string().regex(DIGEST_RE, "a digest is sha256: and 64 lower-case hex digits").transform((s) => s as SkillDigest);
const Version = z.string().regex(/^[0-9A-Za-z][0-9A-Za-z.+-]{0,63}$/);
const IndexSchema = z.object({
  registry_version: z.literal(1),
  skills: z.record(z.string().regex(SKILL_NAME_RE), z.object({
    description: z.string().max(1024).default(""),
    latest: Version,
    versions: z.record(Version, Digest),
  }).loose()),
}).loose();
const RecordSchema = z.object({
  name: z.string().regex(SKILL_NAME_RE),
  version: Version,
  digest: Digest,
  archive: z.string().min(1).max(1024),
  description: z.string().max(1024).default(""),
}).loose();

/** Options of {@link openRegistry}. */
export interface RegistryOptions {
  /** Deadline for one whole request (connect, headers and body), in ms. Default 10 s. */
  timeoutMs?: number;
}

/**
 * Opens a registry of digest-pinned releases served as static files. `location` is an `https://` URL, an
 * `http://` URL on a loopback host (plain HTTP elsewhere would let anyone on the path swap the index and
 * records, which pin the digests), a `file://` URL or an absolute path. Layout under the base:
 * `index.json` ({registry_version: 1, skills: {name: {description, latest, versions: {version: digest}}}}),
 * `releases/<name>/<version>.json` ({name, version, digest, archive, description}) and the archive it names
 * (a tar, optionally gzipped, path relative to the base, holding the files under `<name>/`). The archive path
 * must stay under the base: no `.`/`..` components, and over HTTP the resolved URL keeps the base's origin and
 * path prefix (core/skills/registry-url.ts), so `%2e%2e/` or `https:other.host/` is refused before any fetch.
 * Redirects are refused; every request has one deadline; every body is capped; archives are unpacked off
 * the event loop (skills-unpack.ts).
 */
export function openRegistry(location: string, opts: RegistryOptions = {}): SkillRegistry {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const reader = registryReader(location, timeoutMs);
  const fetchBytes = (rel: string, maxBytes: number): Promise<Uint8Array> => reader.get(rel, maxBytes);
  const json = async <T>(rel: string, schema: z.ZodType<T>, what: string): Promise<T> => {
    const bytes = await fetchBytes(rel, SKILL_LIMITS.recordBytes);
    let raw: unknown;
    try {
      raw = JSON.parse(new TextDecoder().decode(bytes));
    } catch {
      throw new HostgateError("registry_error", `The registry's ${what} (${rel}) is not JSON.`);
    }
    const r = schema.safeParse(raw);
    if (!r.success) throw new HostgateError("registry_error", `The registry's ${what} (${rel}) is malformed: ${r.error.issues.slice(0, 3).map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}.`);
    return r.data;
  };
  return {
    location,
    index: async (): Promise<RegistryIndex> => json("index.json", IndexSchema, "index"),
    release: async (name, version): Promise<ReleaseRecord> => {
      const rec = await json(`releases/${name}/${version}.json`, RecordSchema, `release record for ${name}@${version}`);
      if (rec.name !== name || rec.version !== version) throw new HostgateError("registry_error", `The release record for ${name}@${version} describes ${rec.name}@${rec.version}.`);
      try {
        reader.check(rec.archive);
      } catch (err) {
        throw new HostgateError("registry_error", `The release record for ${name}@${version} names an archive outside the registry: ${(err as Error).message}.`);
      }
      return rec;
    },
    fetchTree: async (record) => {
      const bytes = await fetchBytes(record.archive, SKILL_LIMITS.archiveBytes);
      const files = await unpackArchive(bytes, record.name);
      let actual;
      try {
        actual = treeDigest(files, sha256);
      } catch (err) {
        throw new HostgateError("archive_refused", `The archive of ${record.name}@${record.version} is refused: ${(err as Error).message}.`);
      }
      if (actual !== record.digest) {
        throw new HostgateError("digest_mismatch", `The archive of ${record.name}@${record.version} hashes to ${actual}, but its release pins ${record.digest}. Nothing was installed.`, { hint: "The registry serves a tampered or wrong archive; tell its maintainer." });
      }
      return files;
    },
  };
}

/** Reads one file of the registry by its path relative to the base; `check` throws when a path would leave the base. */
interface Reader {
  get(rel: string, maxBytes: number): Promise<Uint8Array>;
  check(rel: string): void;
}

function registryReader(location: string, timeoutMs: number): Reader {
  if (/^https?:\/\//i.test(location)) {
    const base = new URL(location.endsWith("/") ? location : `${location}/`);
    if (base.protocol === "http:" && !isLoopback(base.hostname)) {
      throw new HostgateError("invalid_params", `Registry ${location}: plain http:// is accepted only on loopback; use https://.`);
    }
    const under = (rel: string): URL => resolveUnderBase(base, checkTreePath(rel));
    return {
      check: (rel) => { under(rel); },
      get: (rel, maxBytes) => {
        let url: URL;
        try {
          url = under(rel);
        } catch (err) {
          return Promise.reject(new HostgateError("registry_error", `The registry path ${JSON.stringify(rel.slice(0, 200))} is refused: ${(err as Error).message}.`));
        }
        return httpGet(url, maxBytes, timeoutMs);
      },
    };
  }
  const root = location.startsWith("file://") ? decodeURIComponent(new URL(location).pathname) : location;
  if (!isAbsolute(root)) throw new HostgateError("invalid_params", `Registry ${location}: use an https:// URL, a file:// URL or an absolute path.`);
  return { check: (rel) => { checkTreePath(rel); }, get: (rel, maxBytes) => fileGet(join(root, checkTreePath(rel)), rel, maxBytes) };
}

function isLoopback(host: string): boolean {
  return host === "localhost" || host === "[::1]" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

async function httpGet(url: URL, maxBytes: number, timeoutMs: number): Promise<Uint8Array> {
  const signal = AbortSignal.timeout(timeoutMs);
  const where = `${url.origin}${url.pathname}`;
  const unreachable = (err: unknown): HostgateError => {
    const timedOut = signal.aborted || (err as Error).name === "TimeoutError" || (err as Error).name === "AbortError";
    return new HostgateError("registry_unreachable", timedOut ? `The registry did not answer ${where} within ${timeoutMs} ms.` : `The registry at ${where} is unreachable: ${(err as Error).message}.`, { hint: "Check skills.registry in the config and that the registry is up; skills_diagnose shows its state." });
  };
  let res: Response;
  try {
    res = await fetch(url, { signal, redirect: "error", headers: { accept: "application/json, application/octet-stream" } });
  } catch (err) {
    throw unreachable(err);
  }
  if (res.status !== 200) {
    await res.body?.cancel().catch(() => undefined);
    throw new HostgateError(res.status === 404 ? "not_found" : "registry_error", `The registry answered HTTP ${res.status} for ${where}.`);
  }
  const declared = Number(res.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > maxBytes) {
    await res.body?.cancel().catch(() => undefined);
    throw new HostgateError("registry_error", `${where} is ${declared} bytes; the limit is ${maxBytes}.`);
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    const reader = res.body!.getReader() as ReadableStreamDefaultReader<Uint8Array>;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.length;
      if (total > maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw new HostgateError("registry_error", `${where} is larger than the limit of ${maxBytes} bytes.`);
      }
      chunks.push(value);
    }
  } catch (err) {
    if (err instanceof HostgateError) throw err;
    throw unreachable(err);
  }
  return concat(chunks, total);
}

async function fileGet(path: string, rel: string, maxBytes: number): Promise<Uint8Array> {
  let fh;
  try {
    fh = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new HostgateError("not_found", `The registry has no ${rel}.`);
    throw new HostgateError("registry_unreachable", `The registry file ${path} cannot be read: ${(err as Error).message}.`);
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw new HostgateError("registry_error", `The registry's ${rel} is not a regular file.`);
    if (st.size > maxBytes) throw new HostgateError("registry_error", `The registry's ${rel} is ${st.size} bytes; the limit is ${maxBytes}.`);
    const buf = await fh.readFile();
    return new Uint8Array(buf.buffer, buf.byteOffset, buf.length);
  } finally {
    await fh.close();
  }
}

function concat(chunks: readonly Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let off = 0;
  for (const c of chunks) { out.set(c, off); off += c.length; }
  return out;
}
