import type { DistroFamily } from "../core/catalogue/action.ts";
import { familyOf, parseOsRelease } from "../core/host/os-release.ts";
import type { HostProbe } from "../ports/host-probe.ts";

/**
 * Hostname and distro family of the host behind a probe, read once at daemon start, and by a front that
 * describes this build's catalogue before its embedded daemon starts (daemon/describe-build.ts).
 */
export async function readHostIdentity(host: HostProbe): Promise<{ hostname: string; family: DistroFamily }> {
  const read = (path: string): Promise<string> => host.readText(path).catch(() => "");
  const osRelease = (await read("/etc/os-release")) || (await read("/usr/lib/os-release"));
  return { hostname: (await read("/proc/sys/kernel/hostname")).trim() || "localhost", family: familyOf(parseOsRelease(osRelease)) };
}
