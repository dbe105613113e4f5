import { z } from "zod";
import { defineReadOnlyAction } from "../action.ts";
import { HostgateError } from "../../errors.ts";
import { redactLines } from "../../redact.ts";
import { normalizeUnitArg } from "../../systemd/unit-name.ts";
import { unitParam } from "./systemd-schemas.ts";

const entry = z.object({ time: z.string(), pid: z.number().nullable(), identifier: z.string().nullable(), message: z.string() });

/** A systemd invocation id: 128 bits as 32 lowercase hex digits (sd-id128). */
const INVOCATION_ID = /^[0-9a-f]{32}$/;

function text(v: unknown): string {
  if (typeof v === "string") return v;
  if (Array.isArray(v)) return new TextDecoder().decode(new Uint8Array(v as number[]));
  return "";
}

/**
 * ReadUnitLogsSinceStart: the journal of one unit's current (or last) run: its InvocationID from `systemctl show`
 * (no D-Bus port for it yet), then `journalctl _SYSTEMD_INVOCATION_ID=<id> + INVOCATION_ID=<id>` (the service's own
 * lines and the manager's about that run, as `systemctl status` shows them). Both tools spawned with fixed argv;
 * messages redacted as read_journal's.
 */
export default defineReadOnlyAction({
  name: "ReadUnitLogsSinceStart",
  title: "Unit logs since start",
  description: "Journal of one unit's current run only (by its InvocationID). Spawns systemctl show + journalctl.",
  params: z.object({ unit: unitParam, limit: z.number().int().min(1).max(1000).default(200) }).strict(),
  output: z.object({ unit: z.string(), invocation_id: z.string(), active_enter: z.string().nullable(), entries: z.array(entry), truncated: z.boolean() }),
  risk_level: "low",
  access: "read_only",
  families: "all",
  min_role: "observer",
  toolsets: ["logs", "systemd"],
  host_derived: true,
  needs: ["files"],
  async run(params, ctx) {
    const unit = normalizeUnitArg(params.unit, "service");
    const [systemctl, journalctl] = [await ctx.host.which("systemctl"), await ctx.host.which("journalctl")];
    if (!systemctl || !journalctl) throw new HostgateError("unavailable", "systemctl or journalctl is not installed on this host.", { hint: "Read plain log files with read_log_file instead." });
    const show = await ctx.host.run([systemctl, "show", "--property=InvocationID,ActiveEnterTimestamp,LoadState", "--", unit], { timeoutMs: 10_000 });
    if (show.exit_code !== 0) throw new HostgateError("unavailable", `systemctl show failed: ${show.stderr.trim().split("\n")[0] ?? ""}`, { hint: "Is systemd the init system here? get_service_status tells." });
    const props = new Map(show.stdout.split("\n").map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)] as const));
    if (props.get("LoadState") === "not-found") throw new HostgateError("no_such_unit", `${unit} is not loaded and has no unit file.`, { hint: "list_units finds the exact name." });
    const id = props.get("InvocationID") ?? "";
    if (!INVOCATION_ID.test(id)) throw new HostgateError("not_found", `${unit} has not run since the manager started (no InvocationID).`, { hint: "read_journal { unit } shows its older runs." });
    const r = await ctx.host.run([journalctl, "--output=json", "--no-pager", `--lines=${params.limit + 1}`, `_SYSTEMD_INVOCATION_ID=${id}`, "+", `INVOCATION_ID=${id}`], { timeoutMs: 10_000, maxOutputBytes: 4 * 1024 * 1024 });
    if (r.exit_code !== 0 && r.stdout.trim() === "") throw new HostgateError("unavailable", `journalctl failed: ${r.stderr.trim().split("\n")[0] ?? ""}`, { hint: "read_log_file reads plain files under /var/log." });
    const entries: z.infer<typeof entry>[] = [];
    for (const line of r.stdout.split("\n")) {
      if (line.trim() === "") continue;
      try {
        const e = JSON.parse(line) as Record<string, unknown>;
        entries.push({ time: new Date(Number(e.__REALTIME_TIMESTAMP ?? 0) / 1000).toISOString(), pid: e._PID === undefined ? null : Number(e._PID), identifier: typeof e.SYSLOG_IDENTIFIER === "string" ? e.SYSLOG_IDENTIFIER : null, message: text(e.MESSAGE) });
      } catch {
        continue; // a line cut by the output cap
      }
    }
    const kept = entries.slice(-params.limit);
    const parts = kept.map((e) => e.message.split("\n"));
    const redacted = redactLines(parts.flat());
    let at = 0;
    for (const [i, p] of parts.entries()) {
      kept[i]!.message = redacted.lines.slice(at, at + p.length).join("\n");
      at += p.length;
    }
    ctx.redacted?.(redacted.per_line.reduce((a, b) => a + b, 0));
    const enter = props.get("ActiveEnterTimestamp") ?? "";
    return { unit, invocation_id: id, active_enter: enter === "" ? null : enter, entries: kept, truncated: entries.length > params.limit || r.truncated };
  },
});
