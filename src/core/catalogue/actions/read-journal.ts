import { z } from "zod";
import { defineReadOnlyAction } from "../action.ts";
import { HostgateError } from "../../errors.ts";
import { redactLines } from "../../redact.ts";

/** How many of the newest entries (after the other filters) a `grep` searches. */
const GREP_WINDOW = 10_000;

const PRIORITIES = ["emerg", "alert", "crit", "err", "warning", "notice", "info", "debug"] as const;

const entry = z.object({
  time: z.string(),
  unit: z.string().nullable(),
  identifier: z.string().nullable(),
  pid: z.number().nullable(),
  priority: z.enum(PRIORITIES).nullable(),
  message: z.string(),
});

const output = z.object({ entries: z.array(entry), truncated: z.boolean() });

/** Decodes journalctl's JSON MESSAGE, which is a byte array when the payload is not valid UTF-8. */
function messageText(value: unknown): string {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return new TextDecoder().decode(new Uint8Array(value as number[]));
  return "";
}

/**
 * ReadJournal: recent journald entries through `journalctl --output=json`. Every value is passed as
 * `--option=value` in argv (no shell), so a value starting with `-` cannot become an option.
 */
export default defineReadOnlyAction({
  name: "ReadJournal",
  title: "Journal",
  description: "Recent journal entries; without a journal use read_log_file.",
  params: z.object({
    unit: z.string().regex(/^[A-Za-z0-9:_.\\@-]{1,255}$/, "a unit name such as nginx.service").optional(),
    since: z.string().regex(/^[0-9A-Za-z :.+-]{1,64}$/, "a journalctl time such as -1h, today or 2026-01-31 12:00").optional(),
    priority: z.enum(PRIORITIES).optional().describe("Or more severe"),
    grep: z.string().min(1).max(1024).optional().describe(`Substring, smart case; scans the newest ${GREP_WINDOW} entries`),
    limit: z.number().int().min(1).max(1000).default(100),
  }).strict(),
  output,
  risk_level: "low",
  access: "read_only",
  families: "all",
  min_role: "observer",
  toolsets: ["logs"],
  host_derived: true,
  async run(params, ctx) {
    const journalctl = await ctx.host.which("journalctl");
    if (!journalctl) {
      throw new HostgateError("unavailable", "journald is not present on this host (journalctl not found).", {
        hint: "Read plain log files under /var/log with read_log_file instead.",
      });
    }
    // No --quiet: it also hides "No journal files were found.", which must not become an empty list (issue 14).
    // grep is never handed to journalctl: it would match the raw text, before redaction, and its answer (which
    // entries come back) would tell whether a hidden password starts with "L" (the read_log_file oracle of
    // issue 12). Entries are redacted first, then filtered here, like read_log_file.
    const argv = [journalctl, "--output=json", "--no-pager", `--lines=${params.grep === undefined ? params.limit : GREP_WINDOW}`];
    if (params.unit !== undefined) argv.push(`--unit=${params.unit}`);
    if (params.since !== undefined) argv.push(`--since=${params.since}`);
    if (params.priority !== undefined) argv.push(`--priority=${params.priority}`);
    const r = await ctx.host.run(argv, { timeoutMs: 10_000, maxOutputBytes: 4 * 1024 * 1024 });
    if (r.stdout.trim() === "" && /No journal files were found/i.test(r.stderr)) {
      throw new HostgateError("unavailable", "This host has no systemd journal: journalctl found no journal files (journald is not running or keeps no journal here).", {
        hint: "Read plain log files under /var/log with read_log_file instead.",
      });
    }
    if (r.exit_code !== 0 && r.stdout.trim() === "") {
      const reason = r.stderr.trim().split("\n")[0] ?? "unknown error";
      throw new HostgateError("unavailable", `journalctl failed: ${reason}`, { hint: "Check the unit name and since value, or read_log_file for /var/log." });
    }
    const entries: z.infer<typeof entry>[] = [];
    for (const line of r.stdout.split("\n")) {
      if (line.trim() === "") continue;
      let e: Record<string, unknown>;
      try {
        e = JSON.parse(line) as Record<string, unknown>;
      } catch {
        continue; // a line cut by the output cap
      }
      const usec = Number(e.__REALTIME_TIMESTAMP ?? 0);
      const prio = Number(e.PRIORITY);
      entries.push({
        time: new Date(usec / 1000).toISOString(),
        unit: typeof e._SYSTEMD_UNIT === "string" ? e._SYSTEMD_UNIT : null,
        identifier: typeof e.SYSLOG_IDENTIFIER === "string" ? e.SYSLOG_IDENTIFIER : null,
        pid: e._PID === undefined ? null : Number(e._PID),
        priority: Number.isInteger(prio) ? PRIORITIES[prio] ?? null : null,
        message: messageText(e.MESSAGE),
      });
    }
    // Redact the messages as one window (a private key logged line by line over several entries included).
    const parts = entries.map((e) => e.message.split("\n"));
    const redacted = redactLines(parts.flat());
    const counts = new Map<z.infer<typeof entry>, number>();
    let at = 0;
    for (const [i, p] of parts.entries()) {
      entries[i]!.message = redacted.lines.slice(at, at + p.length).join("\n");
      counts.set(entries[i]!, redacted.per_line.slice(at, at + p.length).reduce((a, b) => a + b, 0));
      at += p.length;
    }
    // Provenance counts the secrets replaced in the entries returned (the generic pass after this sees markers only).
    const answer = (kept: z.infer<typeof entry>[], truncated: boolean): z.infer<typeof output> => {
      ctx.redacted?.(kept.reduce((n, e) => n + (counts.get(e) ?? 0), 0));
      return { entries: kept, truncated };
    };
    if (params.grep === undefined) return answer(entries, r.truncated);
    const needle = params.grep;
    const smartCase = needle === needle.toLowerCase();
    const found = entries.filter((e) => (smartCase ? e.message.toLowerCase() : e.message).includes(needle));
    return answer(found.slice(-params.limit), r.truncated || found.length > params.limit);
  },
});
