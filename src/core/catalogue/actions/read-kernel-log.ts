import { z } from "zod";
import { defineReadOnlyAction } from "../action.ts";
import { KMSG_FACILITIES, KMSG_PRIORITIES, parseKmsg } from "../../host/kmsg.ts";
import { bootTimeSeconds } from "../../host/proc-stat.ts";
import { redactLines } from "../../redact.ts";

/** The kernel's record device (Documentation/ABI/testing/dev-kmsg). */
export const KMSG_PATH = "/dev/kmsg";
/**
 * Most bytes kept from it: far above the usual ring buffer (128 KiB–1 MiB), so in practice the whole buffer; past
 * it the newest records are kept (HostProbe.readRecords drops the oldest) and the answer says `truncated`.
 */
export const KMSG_MAX_BYTES = 16 * 1024 * 1024;

const record = z.object({
  seq: z.number().int(),
  /** Seconds since boot on the kernel's printk clock (what `dmesg` prints in brackets), µs precision. */
  monotonic_s: z.number(),
  /** Wall-clock time, ISO 8601: boot time (/proc/stat btime, whole seconds) + monotonic_s. Off by time suspended. */
  time: z.string(),
  facility: z.enum(KMSG_FACILITIES),
  priority: z.enum(KMSG_PRIORITIES),
  message: z.string(),
});

const output = z.object({
  records: z.array(record),
  /** Boot time, ISO 8601 (whole seconds, /proc/stat btime). */
  boot_time: z.string(),
  /** True when older records were left out: matching ones by `limit`, or the oldest of the buffer past the 16 MiB read cap (the newest are kept). */
  truncated: z.boolean().describe("Older records left out (by limit, or past the 16 MiB read cap: the newest are kept)"),
});

/**
 * ReadKernelLog: the kernel ring buffer read from /dev/kmsg without blocking (HostProbe.readRecords: O_NONBLOCK
 * until EAGAIN locally, `dd iflag=nonblock` over SSH), what `dmesg` shows, with facility, priority, the monotonic
 * timestamp and a wall-clock one. Filters: `min_priority` (that level or more severe), `since_boot_seconds`,
 * `facility`; the newest `limit` records that pass are returned, redacted as ReadJournal redacts its entries.
 */
export default defineReadOnlyAction({
  name: "ReadKernelLog",
  title: "Kernel log",
  description: "Kernel ring buffer (dmesg), read from /dev/kmsg without blocking: priority, facility, since-boot and wall time; the newest matching records, oldest first.",
  params: z.object({
    min_priority: z.enum(KMSG_PRIORITIES).optional().describe("This level or more severe"),
    since_boot_seconds: z.number().min(0).max(1e9).optional().describe("Only records at or after this many seconds since boot"),
    facility: z.enum(KMSG_FACILITIES).optional(),
    limit: z.number().int().min(1).max(1000).default(100).describe("Newest N records"),
  }).strict(),
  output,
  risk_level: "low",
  access: "read_only",
  families: "all",
  min_role: "observer",
  toolsets: ["kernel", "logs"],
  host_derived: true,
  needs: ["files"],
  async run(params, ctx) {
    const [read, stat] = await Promise.all([ctx.host.readRecords(KMSG_PATH, { maxBytes: KMSG_MAX_BYTES }), ctx.host.readText("/proc/stat")]);
    const btime = bootTimeSeconds(stat);
    const maxLevel = params.min_priority === undefined ? 7 : KMSG_PRIORITIES.indexOf(params.min_priority);
    const facility = params.facility === undefined ? null : KMSG_FACILITIES.indexOf(params.facility);
    const since = params.since_boot_seconds === undefined ? 0 : Math.ceil(params.since_boot_seconds * 1e6);
    const matched = parseKmsg(read.text).filter((r) => r.level <= maxLevel && (facility === null || r.facility === facility) && r.ts_usec >= since);
    const kept = matched.slice(-params.limit);
    // Redact the kept messages as one window (a key printed line by line over several records included).
    const parts = kept.map((r) => r.message.split("\n"));
    const redacted = redactLines(parts.flat());
    ctx.redacted?.(redacted.redactions);
    let at = 0;
    const records = kept.map((r, i) => {
      const n = parts[i]!.length;
      const message = redacted.lines.slice(at, at + n).join("\n");
      at += n;
      return {
        seq: r.seq,
        monotonic_s: r.ts_usec / 1e6,
        time: new Date(btime * 1000 + Math.floor(r.ts_usec / 1000)).toISOString(),
        facility: KMSG_FACILITIES[r.facility] ?? "kern",
        priority: KMSG_PRIORITIES[r.level]!,
        message,
      };
    });
    return { records, boot_time: new Date(btime * 1000).toISOString(), truncated: read.truncated || matched.length > kept.length };
  },
});
