import type { ActionContext } from "../action.ts";
import { HostgateError } from "../../errors.ts";

/**
 * Package-manager argv for the two supported families. Every argv is fixed apart from a validated package
 * name or query placed after `--` where the tool accepts it, so input can never become an option.
 */

/** Debian policy §5.6.1: package names are [a-z0-9][a-z0-9+.-]+. RPM names allow a little more. */
export const PACKAGE_NAME = /^[A-Za-z0-9][A-Za-z0-9+._-]{0,127}$/;
/** Queries are plain words: letters, digits, space and + . _ - (no regex metacharacters). */
export const PACKAGE_QUERY = /^[A-Za-z0-9+._ -]{1,128}$/;

/**
 * Runs a package tool and returns stdout; a missing tool is `unavailable`, a failure `backend_error`, a run
 * beyond `timeoutMs` (default 30 s; the child is killed) `timeout`.
 */
export async function runTool(ctx: ActionContext, argv: string[], okExitCodes: readonly number[] = [0], timeoutMs = 30_000): Promise<string> {
  const path = await ctx.host.which(argv[0]!);
  if (!path) {
    throw new HostgateError("unavailable", `${argv[0]} is not installed on this host.`, { hint: "This host's package tools are missing; check get_system_info for the distro." });
  }
  const r = await ctx.host.run([path, ...argv.slice(1)], { timeoutMs, maxOutputBytes: 4 * 1024 * 1024 });
  if (r.timed_out) {
    throw new HostgateError("timeout", `${argv[0]} did not finish within ${Math.round(timeoutMs / 1000)} s and was stopped.`, { hint: "The host may be overloaded or its package tool stuck on a lock; try again later." });
  }
  if (r.exit_code === null || !okExitCodes.includes(r.exit_code)) {
    throw new HostgateError("backend_error", `${argv[0]} failed (exit ${r.exit_code ?? r.signal}): ${r.stderr.trim().split("\n")[0] ?? ""}`);
  }
  return r.stdout;
}

/** Installed versions by package name (dpkg-query on Debian, rpm on Fedora). */
export async function installedVersions(ctx: ActionContext, names?: string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (ctx.family === "debian") {
    const text = await runTool(ctx, ["dpkg-query", "-W", "-f=${db:Status-Abbrev}\t${Package}\t${Version}\n", "--", ...(names ?? [])], [0, 1]);
    for (const line of text.split("\n")) {
      const [status, name, version] = line.split("\t");
      // The second letter is dpkg's package state (i: installed); the first the selection (i install, h hold…).
      if (status?.[1] === "i" && name && version) out.set(name, version);
    }
  } else {
    const text = await runTool(ctx, ["rpm", "-q", "--queryformat", "%{NAME}\t%{VERSION}-%{RELEASE}\n", ...(names ?? ["-a"])], [0, 1]);
    for (const [name, version] of parseRpmQuery(text)) out.set(name, version);
  }
  return out;
}

/**
 * `rpm -q --queryformat '%{NAME}\t%{VERSION}-%{RELEASE}\n' NAMES…` as name → version-release; rpm's
 * `package NAME is not installed` lines (exit 1) are skipped.
 */
export function parseRpmQuery(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split("\n")) {
    const [name, version] = line.split("\t");
    if (name && version && !line.includes(" is not installed")) out.set(name, version);
  }
  return out;
}
