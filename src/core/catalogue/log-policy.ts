import type { FileOwner } from "../../ports/host-probe.ts";
import { isWithinRoot } from "../paths.ts";

/**
 * Which log files read_log_file may return (configuration `logs.readable`, issue 12), resolved by the daemon:
 * - `all`: every regular file under /var/log (the daemon's own file permissions still apply);
 * - `group`: files readable by that group (group-read bit and the file's group, as Debian's `adm`) or by
 *   everyone; a root-only 0600 log is refused. The default of the system daemon, with group `adm`;
 * - `paths`: only files at or under the listed absolute paths.
 * Patterns redact secrets in what is returned; this rule keeps whole root-only logs out of reach.
 */
export type LogReadPolicy =
  | { kind: "all" }
  | { kind: "group"; name: string; gid: number | null }
  | { kind: "paths"; paths: readonly string[] };

/** Why the opened file at `realPath` may not be returned under `policy`, or null when it may. */
export function logReadRefusal(policy: LogReadPolicy, realPath: string, owner: FileOwner): string | null {
  if (policy.kind === "all") return null;
  if (policy.kind === "paths") {
    return policy.paths.some((p) => isWithinRoot(realPath, p)) ? null : `it is not under logs.readable (${policy.paths.join(", ")})`;
  }
  if ((owner.mode & 0o004) !== 0) return null;
  if (policy.gid !== null && owner.gid === policy.gid && (owner.mode & 0o040) !== 0) return null;
  return `logs.readable is ${policy.name}: only files readable by group ${policy.name}${policy.gid === null ? " (no such group on this host)" : ""} or by everyone are returned, and this one is mode ${owner.mode.toString(8).padStart(4, "0")}`;
}
