import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer, type Server, type ServerResponse } from "node:http";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

/** One tar entry for {@link makeTar}: a regular file, a directory, a symlink or a hard link. */
export interface TarEntry {
  path: string;
  type?: "file" | "dir" | "symlink" | "link" | "chardev";
  content?: string | Uint8Array;
  linkname?: string;
}

function octal(n: number, width: number): string {
  return n.toString(8).padStart(width - 1, "0") + "\0";
}

/**
 * Writes a ustar archive by hand (the test needs archives no well-behaved packer writes: `..` paths,
 * absolute paths, links, devices). 512-byte headers, checksum per POSIX, two zero blocks at the end.
 */
export function makeTar(entries: readonly TarEntry[], gzip = true): Uint8Array {
  const blocks: Buffer[] = [];
  for (const e of entries) {
    const data = e.type === undefined || e.type === "file" ? Buffer.from(e.content ?? "") : Buffer.alloc(0);
    const h = Buffer.alloc(512);
    let name = e.path;
    let prefix = "";
    if (Buffer.byteLength(name) > 100) { const cut = name.lastIndexOf("/", 154); prefix = name.slice(0, cut); name = name.slice(cut + 1); }
    h.write(name, 0, 100, "utf8");
    h.write(octal(e.type === "dir" ? 0o755 : 0o644, 8), 100);
    h.write(octal(0, 8), 108);
    h.write(octal(0, 8), 116);
    h.write(octal(data.length, 12), 124);
    h.write(octal(1_700_000_000, 12), 136);
    h.write("        ", 148);
    h.write({ file: "0", dir: "5", symlink: "2", link: "1", chardev: "3" }[e.type ?? "file"], 156);
    if (e.linkname) h.write(e.linkname, 157, 100);
    h.write("ustar\0", 257);
    h.write("00", 263);
    h.write(prefix, 345, 155);
    let sum = 0;
    for (const b of h) sum += b;
    h.write(octal(sum, 7) + " ", 148);
    blocks.push(h, data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  const tar = Buffer.concat(blocks);
  return gzip ? gzipSync(tar) : tar;
}

/** The digest rule of core/skills/digest.ts, written again independently for tests. */
export function digestOf(files: Record<string, string | Uint8Array>): string {
  const h = createHash("sha256");
  const u64 = (n: number): Buffer => { const b = Buffer.alloc(8); b.writeBigUInt64BE(BigInt(n)); return b; };
  for (const p of Object.keys(files).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)))) {
    const c = Buffer.from(files[p]!);
    h.update(u64(Buffer.byteLength(p))); h.update(p); h.update(u64(c.length)); h.update(c);
  }
  return `sha256:${h.digest("hex")}`;
}

/** A minimal valid skill tree for `name`. */
export function skillFiles(name: string, extra: Record<string, string | Uint8Array> = {}): Record<string, string | Uint8Array> {
  return {
    "SKILL.md": `---\nname: ${name}\ndescription: Test skill ${name}, for the registry tests.\n---\n# ${name}\n\nSteps.\n`,
    ...extra,
  };
}

/**
 * Lays out a static registry under `dir`: index.json, releases/<name>/<version>.json and archives/. Each
 * release gives its files (archived under `<name>/`) and, optionally, a digest to pin instead of the true one
 * (a tampered release) or raw tar entries (hostile archives).
 */
export function writeRegistry(dir: string, releases: readonly { name: string; version: string; files: Record<string, string | Uint8Array>; pin?: string; entries?: TarEntry[] }[]): void {
  const index: { registry_version: 1; skills: Record<string, { description: string; latest: string; versions: Record<string, string> }> } = { registry_version: 1, skills: {} };
  mkdirSync(join(dir, "archives"), { recursive: true });
  for (const r of releases) {
    const digest = r.pin ?? digestOf(r.files);
    const archive = `archives/${r.name}-${r.version}.tar.gz`;
    const entries = r.entries ?? Object.entries(r.files).map(([p, c]) => ({ path: `${r.name}/${p}`, content: c }));
    writeFileSync(join(dir, archive), makeTar(entries));
    mkdirSync(join(dir, "releases", r.name), { recursive: true });
    writeFileSync(join(dir, "releases", r.name, `${r.version}.json`), JSON.stringify({ name: r.name, version: r.version, digest, archive, description: `Test skill ${r.name}` }));
    const e = (index.skills[r.name] ??= { description: `Test skill ${r.name}`, latest: r.version, versions: {} });
    e.versions[r.version] = digest;
    e.latest = r.version;
  }
  writeFileSync(join(dir, "index.json"), JSON.stringify(index));
}

/**
 * Serves `dir` as static files on 127.0.0.1 (port 0). `hang` paths accept the request and never answer;
 * `stall` paths send headers and part of the body, then stop. Returns the base URL and a closer.
 */
export async function serveRegistry(dir: string, opts: { hang?: (path: string) => boolean; stall?: (path: string) => boolean } = {}): Promise<{ url: string; requests: string[]; close(): Promise<void> }> {
  const { readFile } = await import("node:fs/promises");
  const requests: string[] = [];
  const held: ServerResponse[] = [];
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
    requests.push(path);
    if (opts.hang?.(path)) { held.push(res); return; }
    readFile(join(dir, path)).then((body) => {
      if (opts.stall?.(path)) { res.writeHead(200, { "content-length": String(body.length) }); res.write(body.subarray(0, 10)); held.push(res); return; }
      res.writeHead(200, { "content-length": String(body.length) });
      res.end(body);
    }, () => { res.writeHead(404); res.end("not found"); });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/`,
    requests,
    close: () => new Promise<void>((resolve) => { for (const r of held) r.destroy(); server.closeAllConnections(); server.close(() => { resolve(); }); }),
  };
}
