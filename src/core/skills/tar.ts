import { SKILL_LIMITS } from "./limits.ts";
import { checkTreePath, TreeError, type TreeFile } from "./tree.ts";

/**
 * A streaming reader of one skill archive's tar bytes (already decompressed), written for issue 21 (T3-18..20,
 * T3-23) so that every decision is ours: no library sniffing a second compression layer inside, no entry
 * written anywhere. Bytes are pushed in chunks of any size; the reader counts every byte (headers, refused
 * entries, padding) against {@link SKILL_LIMITS.tarBytes}, throws {@link ArchiveRefusal} at the first refusal,
 * and reports `ended` at the end-of-archive marker (two zero blocks), after which the caller stops reading.
 *
 * Accepted: POSIX ustar and GNU headers; entry types regular file (`0`, NUL, `7`) and directory (`5`); pax
 * extended headers (`x`, only `path` and `size` are used; `g` is skipped) and GNU long names (`L`). Refused:
 * every other type (symbolic `2` and hard `1` links, devices, FIFOs, GNU long link names `K`…), a bad
 * checksum, base-256 sizes, any path outside `<name>/` or failing the tree rules (core/skills/tree.ts), a
 * duplicate path, and the caps (files, per-file and total bytes). Pure: no I/O.
 */
export class ArchiveRefusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ArchiveRefusal";
  }
}

const BLOCK = 512;
type State = { kind: "header" } | { kind: "data"; left: number; pad: number; use: "file" | "pax" | "long" | "skip"; path: string; chunks: Uint8Array[]; got: number } | { kind: "zero" } | { kind: "ended" };

const strict = new TextDecoder("utf-8", { fatal: true });
const text = (b: Uint8Array): string => {
  const end = b.indexOf(0);
  return strict.decode(end < 0 ? b : b.subarray(0, end));
};

function octal(field: Uint8Array, what: string): number {
  if ((field[0]! & 0x80) !== 0) throw new ArchiveRefusal(`a tar header's ${what} uses base-256 (too large)`);
  const end = field.indexOf(0);
  const s = String.fromCharCode(...(end < 0 ? field : field.subarray(0, end))).trim();
  if (s === "") return 0;
  if (!/^[0-7]+$/.test(s)) throw new ArchiveRefusal(`a tar header's ${what} is not octal`);
  return parseInt(s, 8);
}

function concat(chunks: readonly Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let off = 0;
  for (const c of chunks) { out.set(c, off); off += c.length; }
  return out;
}

/** The pax records `len key=value\n` of an extended header (lengths in bytes), as a map. */
function paxRecords(bytes: Uint8Array): Map<string, string> {
  const out = new Map<string, string>();
  const dec = strict;
  let i = 0;
  while (i < bytes.length && bytes[i] !== 0) {
    const sp = bytes.indexOf(0x20, i);
    const len = sp < 0 || sp - i > 12 ? NaN : Number(dec.decode(bytes.subarray(i, sp)));
    if (!Number.isInteger(len) || len <= sp - i || i + len > bytes.length || bytes[i + len - 1] !== 0x0a) throw new ArchiveRefusal("a pax header is malformed");
    let rec: string;
    try {
      rec = dec.decode(bytes.subarray(sp + 1, i + len - 1));
    } catch {
      throw new ArchiveRefusal("a pax header is not UTF-8");
    }
    const eq = rec.indexOf("=");
    if (eq < 0) throw new ArchiveRefusal("a pax header is malformed");
    out.set(rec.slice(0, eq), rec.slice(eq + 1));
    i += len;
  }
  return out;
}

/** See the module comment. `name` is the skill's name: every entry must sit under `<name>/`. */
export class SkillTarReader {
  /** Decompressed bytes pushed so far. */
  total = 0;
  private state: State = { kind: "header" };
  private pending = new Uint8Array(0);
  private readonly files: TreeFile[] = [];
  private readonly seen = new Set<string>();
  private treeBytes = 0;
  private nextPath: string | null = null;
  private nextSize: number | null = null;

  constructor(private readonly name: string) {}

  /** True once the end-of-archive marker was read; push nothing more. */
  get ended(): boolean {
    return this.state.kind === "ended";
  }

  /** Feeds bytes. Throws ArchiveRefusal at the first refusal (the caller stops and discards everything). */
  push(chunk: Uint8Array): void {
    if (this.ended) return;
    this.total += chunk.length;
    if (this.total > SKILL_LIMITS.tarBytes) throw new ArchiveRefusal(`the archive unpacks to more than ${SKILL_LIMITS.tarBytes} bytes`);
    let buf = this.pending.length === 0 ? chunk : concat([this.pending, chunk], this.pending.length + chunk.length);
    while (!this.ended) {
      const st = this.state;
      if (st.kind === "data") {
        if (st.left > 0) {
          if (buf.length === 0) break;
          const take = Math.min(st.left, buf.length);
          if (st.use !== "skip") { st.chunks.push(buf.slice(0, take)); st.got += take; }
          st.left -= take;
          buf = buf.subarray(take);
          if (st.left > 0) break;
        }
        if (buf.length < st.pad) break;
        buf = buf.subarray(st.pad);
        this.finish(st);
        continue;
      }
      if (buf.length < BLOCK) break;
      const block = buf.subarray(0, BLOCK);
      buf = buf.subarray(BLOCK);
      let zero = true;
      for (let i = 0; i < BLOCK; i++) if (block[i] !== 0) { zero = false; break; }
      if (st.kind === "zero") {
        if (!zero) throw new ArchiveRefusal("a single zero block inside the archive (malformed tar)");
        this.state = { kind: "ended" };
        break;
      }
      if (zero) { this.state = { kind: "zero" }; continue; }
      this.header(block);
    }
    this.pending = this.ended ? new Uint8Array(0) : buf.slice();
  }

  /** The files, after the end-of-archive marker; throws when the archive stopped before it. */
  result(): TreeFile[] {
    if (!this.ended) throw new ArchiveRefusal("the archive ends before its end-of-archive blocks (truncated tar)");
    return this.files;
  }

  private header(h: Uint8Array): void {
    const stored = octal(h.subarray(148, 156), "checksum");
    let sum = 0;
    let signed = 0;
    for (let i = 0; i < BLOCK; i++) {
      const b = i >= 148 && i < 156 ? 0x20 : h[i]!;
      sum += b;
      signed += b > 127 ? b - 256 : b;
    }
    if (stored !== sum && stored !== signed) throw new ArchiveRefusal("a tar header's checksum is wrong (not a tar, or corrupt)");
    let name: string;
    let linkName: string;
    try {
      name = text(h.subarray(0, 100));
      linkName = text(h.subarray(157, 257));
      const ustar = text(h.subarray(257, 263)) === "ustar" && h[262] === 0;
      const prefix = ustar ? text(h.subarray(345, 500)) : "";
      if (prefix !== "") name = `${prefix}/${name}`;
    } catch {
      throw new ArchiveRefusal("a tar header's name is not UTF-8");
    }
    const type = String.fromCharCode(h[156]!);
    let size = octal(h.subarray(124, 136), "size");
    const pad = (n: number): number => (BLOCK - (n % BLOCK)) % BLOCK;
    if (type === "x" || type === "L") {
      if (size > SKILL_LIMITS.tarMetaBytes) throw new ArchiveRefusal(`a tar ${type === "x" ? "pax" : "long-name"} header is larger than ${SKILL_LIMITS.tarMetaBytes} bytes`);
      this.state = { kind: "data", left: size, pad: pad(size), use: type === "x" ? "pax" : "long", path: "", chunks: [], got: 0 };
      return;
    }
    if (type === "g") { this.state = { kind: "data", left: size, pad: pad(size), use: "skip", path: "", chunks: [], got: 0 }; return; }
    const path = this.nextPath ?? name;
    if (this.nextSize !== null) size = this.nextSize;
    this.nextPath = null;
    this.nextSize = null;
    const shown = JSON.stringify(path.slice(0, 200));
    const kinds: Record<string, string> = { "1": "hard link", "2": "symbolic link", "3": "character device", "4": "block device", "6": "FIFO", K: "long link name" };
    if (type === "5") {
      this.inside(path.replace(/\/+$/, ""), true);
      this.state = { kind: "data", left: size, pad: pad(size), use: "skip", path, chunks: [], got: 0 };
      return;
    }
    if (type !== "0" && type !== "\0" && type !== "7") {
      throw new ArchiveRefusal(`${shown} is a ${kinds[type] ?? `type ${JSON.stringify(type)}`} entry${linkName ? ` (to ${JSON.stringify(linkName.slice(0, 200))})` : ""}; skills hold regular files only`);
    }
    const rel = this.inside(path, false);
    if (this.seen.has(rel)) throw new ArchiveRefusal(`${shown} appears twice`);
    if (size > SKILL_LIMITS.fileBytes) throw new ArchiveRefusal(`${shown} is larger than ${SKILL_LIMITS.fileBytes} bytes`);
    if (this.files.length >= SKILL_LIMITS.treeFiles) throw new ArchiveRefusal(`more than ${SKILL_LIMITS.treeFiles} files`);
    this.treeBytes += size;
    if (this.treeBytes > SKILL_LIMITS.treeBytes) throw new ArchiveRefusal(`the files add up to more than ${SKILL_LIMITS.treeBytes} bytes`);
    this.seen.add(rel);
    this.state = { kind: "data", left: size, pad: pad(size), use: "file", path: rel, chunks: [], got: 0 };
  }

  /** Checks that `path` sits under `<name>/` and passes the tree rules; returns it relative to `<name>/`. */
  private inside(path: string, dir: boolean): string {
    const prefix = `${this.name}/`;
    if (dir && path === this.name) return "";
    if (!path.startsWith(prefix)) throw new ArchiveRefusal(`${JSON.stringify(path.slice(0, 200))} is outside ${prefix}`);
    try {
      return checkTreePath(path.slice(prefix.length));
    } catch (err) {
      throw new ArchiveRefusal((err as TreeError).message);
    }
  }

  private finish(st: Extract<State, { kind: "data" }>): void {
    this.state = { kind: "header" };
    if (st.use === "file") this.files.push({ path: st.path, bytes: concat(st.chunks, st.got) });
    else if (st.use === "long") {
      try {
        this.nextPath = text(concat(st.chunks, st.got));
      } catch {
        throw new ArchiveRefusal("a GNU long name is not UTF-8");
      }
    }
    else if (st.use === "pax") {
      const rec = paxRecords(concat(st.chunks, st.got));
      if (rec.has("path")) this.nextPath = rec.get("path")!;
      if (rec.has("size")) {
        const n = Number(rec.get("size"));
        if (!Number.isSafeInteger(n) || n < 0) throw new ArchiveRefusal("a pax size is not a number");
        this.nextSize = n;
      }
    }
  }
}
