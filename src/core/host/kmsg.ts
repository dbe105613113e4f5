/**
 * The kernel log as /dev/kmsg hands it out (Documentation/ABI/testing/dev-kmsg): one record per line,
 * `<prival>,<seq>,<ts_usec>,<flag>[,<more>…];<message>`, then zero or more continuation lines starting with a
 * space (` SUBSYSTEM=…`, ` DEVICE=…`: the record's dictionary, ignored here). `prival` is facility × 8 + level
 * (syslog(3)); `ts_usec` is µs of the kernel's monotonic printk clock since boot (time suspended is not counted);
 * the kernel writes every byte below 0x20, from 0x7f and a backslash as `\xNN`, decoded here (a multi-line message
 * comes back with its newlines).
 */

/** syslog(3) level names, 0 (emerg) … 7 (debug); the words ReadJournal uses. */
export const KMSG_PRIORITIES = ["emerg", "alert", "crit", "err", "warning", "notice", "info", "debug"] as const;
export type KmsgPriority = (typeof KMSG_PRIORITIES)[number];

/** syslog(3) facility names by code (0–23), as util-linux dmesg names them; codes 12–15 are reserved. */
export const KMSG_FACILITIES = [
  "kern", "user", "mail", "daemon", "auth", "syslog", "lpr", "news", "uucp", "cron", "authpriv", "ftp",
  "res0", "res1", "res2", "res3", "local0", "local1", "local2", "local3", "local4", "local5", "local6", "local7",
] as const;

/** One parsed record. `ts_usec`: µs since boot (printk clock). */
export interface KmsgRecord {
  seq: number;
  level: number;
  facility: number;
  ts_usec: number;
  message: string;
}

const HEAD = /^(\d+),(\d+),(\d+),[^;]*;/;

/** Decodes the kernel's `\xNN` escapes into bytes and reads them as UTF-8 (a bad sequence becomes U+FFFD). */
export function unescapeKmsg(text: string): string {
  if (!text.includes("\\x")) return text;
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const m = text.startsWith("\\x", i) ? /^[0-9a-fA-F]{2}$/.exec(text.slice(i + 2, i + 4)) : null;
    if (m) {
      bytes.push(parseInt(m[0], 16));
      i += 3;
      continue;
    }
    for (const b of new TextEncoder().encode(text[i])) bytes.push(b);
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

/**
 * Parses the records of a /dev/kmsg read, in order. Lines that are not a record head (dictionary lines, a line
 * cut by a size cap) are skipped; never throws.
 */
export function parseKmsg(text: string): KmsgRecord[] {
  const out: KmsgRecord[] = [];
  for (const line of text.split("\n")) {
    const m = HEAD.exec(line);
    if (!m) continue;
    const prival = Number(m[1]);
    out.push({ seq: Number(m[2]), level: prival & 7, facility: prival >> 3, ts_usec: Number(m[3]), message: unescapeKmsg(line.slice(m[0].length)) });
  }
  return out;
}
