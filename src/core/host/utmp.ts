/**
 * utmp/wtmp records (utmp(5), glibc on Linux: 384 bytes each, little-endian on x86-64 and arm64, 32-bit time
 * fields even on 64-bit hosts). The file is given as a latin1 string (one character per byte).
 */
export const UTMP_RECORD_BYTES = 384;

/** ut_type values (utmp(5)). */
export const UT_TYPES: Readonly<Record<number, string>> = { 0: "empty", 1: "run_level", 2: "boot_time", 3: "new_time", 4: "old_time", 5: "init_process", 6: "login_process", 7: "user_process", 8: "dead_process", 9: "accounting" };

/** One record. `time_ms` is ut_tv in milliseconds since the epoch; `address` the remote IPv4/IPv6 address or null. */
export interface UtmpRecord {
  type: string;
  pid: number;
  line: string;
  id: string;
  user: string;
  host: string;
  session: number;
  time_ms: number;
  address: string | null;
}

function u32(s: string, at: number): number {
  return (s.charCodeAt(at) | (s.charCodeAt(at + 1) << 8) | (s.charCodeAt(at + 2) << 16) | (s.charCodeAt(at + 3) << 24)) >>> 0;
}

function cstr(s: string, at: number, len: number): string {
  const raw = s.slice(at, at + len);
  const end = raw.indexOf("\0");
  const bytes = Uint8Array.from(end < 0 ? raw : raw.slice(0, end), (c) => c.charCodeAt(0));
  return new TextDecoder().decode(bytes);
}

function address(s: string, at: number): string | null {
  const words = [0, 1, 2, 3].map((i) => u32(s, at + 4 * i));
  if (words.every((w) => w === 0)) return null;
  if (words[1] === 0 && words[2] === 0 && words[3] === 0) return [0, 1, 2, 3].map((i) => s.charCodeAt(at + i)).join(".");
  const parts: string[] = [];
  for (let i = 0; i < 16; i += 2) parts.push(((s.charCodeAt(at + i) << 8) | s.charCodeAt(at + i + 1)).toString(16));
  return parts.join(":").replace(/(^|:)0(:0)+(:|$)/, "::");
}

/** Parses whole records; a trailing partial record is ignored. */
export function parseUtmp(data: string): UtmpRecord[] {
  const out: UtmpRecord[] = [];
  for (let at = 0; at + UTMP_RECORD_BYTES <= data.length; at += UTMP_RECORD_BYTES) {
    const type = data.charCodeAt(at) | (data.charCodeAt(at + 1) << 8);
    out.push({
      type: UT_TYPES[type] ?? `unknown_${type}`,
      pid: u32(data, at + 4) | 0,
      line: cstr(data, at + 8, 32),
      id: cstr(data, at + 40, 4),
      user: cstr(data, at + 44, 32),
      host: cstr(data, at + 76, 256),
      session: u32(data, at + 336) | 0,
      time_ms: u32(data, at + 340) * 1000 + Math.floor(u32(data, at + 344) / 1000),
      address: address(data, at + 348),
    });
  }
  return out;
}
