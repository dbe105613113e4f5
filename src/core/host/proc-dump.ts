/**
 * The process files of every pid in one round trip: the fixed remote command PROC_DUMP_ARGV runs GNU sed over
 * /proc/[0-9]*\/{stat,status,cmdline} with `-z -n -s '1F;l 0'` in the C locale. For each file with content sed
 * prints its name, then every NUL-separated record of it in `l` form (backslash escapes, C escapes and `\ooo`
 * octal for every other non-printable or non-ASCII byte, then `$`), each output record ending in NUL. A record
 * ending in `$` is content; any other record is a file name (our names are /proc/N/…, never ending in `$`), so a
 * process cannot forge another's entry whatever its command line holds. An empty file prints nothing at all.
 */

/** argv of the dump (no interpolation: the globs are expanded by the remote `sh`, not by us). */
export const PROC_DUMP_ARGV = ["sh", "-c", "exec sed -z -n -s '1F;l 0' /proc/[0-9]*/stat /proc/[0-9]*/status /proc/[0-9]*/cmdline 2>/dev/null"] as const;

const C_ESCAPES: Record<string, number> = { "\\": 92, a: 7, b: 8, f: 12, n: 10, r: 13, t: 9, v: 11 };

/**
 * Bytes of one `l`-escaped record (without its final `$`); throws on an escape sed does not write. The text is
 * ASCII (the C locale escapes every other byte), so runs between escapes are copied whole (latin1), not byte by
 * byte: most records have no escape at all (issue 20, list_processes over SSH).
 */
function unescape(rec: string): Buffer {
  if (!rec.includes("\\")) return Buffer.from(rec, "latin1");
  const out = Buffer.allocUnsafe(rec.length);
  let o = 0;
  let i = 0;
  for (;;) {
    const j = rec.indexOf("\\", i);
    o += out.write(rec.slice(i, j < 0 ? rec.length : j), o, "latin1");
    if (j < 0) return out.subarray(0, o);
    const e = rec[j + 1] ?? "";
    if (e in C_ESCAPES) {
      out[o++] = C_ESCAPES[e]!;
      i = j + 2;
      continue;
    }
    const oct = rec.slice(j + 1, j + 4);
    if (!/^[0-7]{3}$/.test(oct)) throw new Error(`bad escape at ${j}`);
    out[o++] = parseInt(oct, 8);
    i = j + 4;
  }
}

/**
 * Parses the dump into file path → content bytes (the records joined by NUL, a cmdline given back its final
 * NUL). Returns null when the text is not such a dump (another sed, a truncated answer): the caller reads the
 * files one by one instead.
 */
export function parseProcDump(text: string): Map<string, Buffer> | null {
  const files = new Map<string, Buffer[]>();
  let current: Buffer[] | null = null;
  const records = text.split("\0");
  if (records.pop() !== "") return null;
  try {
    for (const r of records) {
      if (r.endsWith("$")) {
        if (!current) return null;
        current.push(unescape(r.slice(0, -1)));
      } else {
        if (!/^\/proc\/\d+\/(stat|status|cmdline)$/.test(r)) return null;
        current = [];
        files.set(r, current);
      }
    }
  } catch {
    return null;
  }
  const out = new Map<string, Buffer>();
  for (const [path, parts] of files) {
    const joined = Buffer.concat(parts.flatMap((p, i) => (i === 0 ? [p] : [Buffer.from([0]), p])));
    out.set(path, path.endsWith("/cmdline") ? Buffer.concat([joined, Buffer.from([0])]) : joined);
  }
  return out;
}
