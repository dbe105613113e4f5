import { HostgateError } from "../errors.ts";

/**
 * Boot time from the text of /proc/stat: its `btime` line, seconds since the epoch (proc(5)). Throws
 * `unavailable` when the line is missing or not a positive integer, instead of counting from 1970: every
 * wall-clock time derived from it (process start times, kernel log records) would be silently wrong.
 */
export function bootTimeSeconds(procStat: string): number {
  const btime = Number(/^btime (\d{1,12})$/m.exec(procStat)?.[1] ?? Number.NaN);
  if (!Number.isSafeInteger(btime) || btime <= 0) {
    throw new HostgateError("unavailable", "/proc/stat has no btime line, so wall-clock times cannot be computed on this host.", {
      hint: "The host's /proc is not the kernel's (a container or an emulation layer): read times since boot instead.",
    });
  }
  return btime;
}
