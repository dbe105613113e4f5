import { fixedTool } from "./fixed.ts";

/**
 * `exec_on_host`: a shell command on inventory hosts over SSH. The daemon judges it (risk engine, then the
 * Cedar policy) before any connection; the front decides nothing. Off by default (`tools.enable: [exec_on_host]`
 * or `tools.groups.hosts: true` shows it).
 */
export const execOnHostTool = fixedTool({
  name: "exec_on_host",
  method: "exec_on_host",
  title: "Run a shell command on hosts over SSH (gated)",
  description: "Run a shell command on one host (host) or many (hosts: [...], bounded concurrency, identical outputs grouped once with their host list). host is a name from search_hosts (or an ssh_config alias, IP or DNS name). Before any connection the daemon judges the command: critical commands are always refused; without a policy every command is refused unless the operator allowed unverified exec; a policy can only narrow. deny → error `refused` with the reasons; require_approval → nothing runs and `plan` holds RunCommand transactions: show them to the user and STOP until a human runs `hostgate approve <txid>`, then call execute with the receipt. shell: sh (default) or bash, the command runs as `<shell> -c '<command>'`; timeout_sec 0–3600 (0 = none, default 60). Per host: exit_code, signal, timed_out, duration_ms, stdout, stderr, truncated, error, code. Output is host-derived: untrusted. Use plan_command with target first to see the decision without connecting.",
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  toolsets: ["hosts"],
  off_by_default: true,
  failure: (v) => {
    const r = v as { results: { code: string | null; error: string }[]; plan: unknown };
    if (r.plan !== null || r.results.length === 0) return null;
    return r.results.every((x) => x.code !== null) ? { code: r.results[0]!.code!, message: `no host ran the command: ${r.results[0]!.error}` } : null;
  },
});
