import { z } from "zod";
import { defineReadOnlyAction } from "../action.ts";
import { HostgateError } from "../../errors.ts";
import { isWithinRoot } from "../../paths.ts";
import { redactLines } from "../../redact.ts";
import { logReadRefusal } from "../log-policy.ts";

/** The only directory read_log_file may read under (DESIGN.md: no read-only tool returns secrets). */
export const LOG_ROOT = "/var/log";
const MAX_BYTES = 1024 * 1024;

/**
 * ReadLogFile: the tail of a regular file under /var/log. The path is checked twice: lexically (absolute,
 * no `..`, under the root) and after resolving symlinks with realpath (corpus cases M031, M033, M034).
 */
export default defineReadOnlyAction({
  name: "ReadLogFile",
  title: "Log file",
  description: "Tail a text log under /var/log, secrets redacted.",
  params: z.object({
    path: z.string().min(1).max(1024),
    lines: z.number().int().min(1).max(5000).default(100),
    grep: z.string().max(1024).optional().describe("Substring"),
  }).strict(),
  output: z.object({ path: z.string(), lines: z.array(z.string()), file_size_bytes: z.number(), truncated: z.boolean() }),
  risk_level: "low",
  access: "read_only",
  families: "all",
  min_role: "observer",
  toolsets: ["logs"],
  host_derived: true,
  async run(params, ctx) {
    const refuse = (why: string): never => {
      throw new HostgateError("forbidden_path", `Refused ${JSON.stringify(params.path)}: ${why}.`, {
        hint: `Pass an absolute path to a regular file under ${LOG_ROOT}/, e.g. ${LOG_ROOT}/syslog.`,
      });
    };
    if (!params.path.startsWith("/")) refuse("the path must be absolute");
    if (params.path.split("/").includes("..")) refuse("`..` segments are not allowed");
    if (!isWithinRoot(params.path, LOG_ROOT)) refuse(`it is outside ${LOG_ROOT}`);
    // Under a restricting logs.readable every way a path can fail after the lexical checks (absent, a symlink
    // or resolving outside /var/log, not a regular file, hard-linked, the policy, its mode) answers alike: which
    // of these holds is a fact about a file the model may not read, and a root-only directory under /var/log
    // (/var/log/private, /var/log/audit) would otherwise be probed name by name (red team, issue 12).
    const uniform = (err: unknown): never => {
      if (ctx.logs_readable.kind === "all" || !(err instanceof HostgateError)) throw err;
      throw new HostgateError("forbidden_path", `Refused ${JSON.stringify(params.path)}: it is not a log file logs.readable lets this daemon return (absent, not a regular file, a link, or not readable under the policy).`, {
        hint: "Read another log (or the journal with read_journal), or ask an administrator to widen logs.readable in the daemon's configuration (docs/configuration.md).",
      });
    };
    let real: string;
    let tail: Awaited<ReturnType<typeof ctx.host.readTailConfined>>;
    try {
      real = await ctx.host.realPath(params.path);
      if (!isWithinRoot(real, LOG_ROOT)) refuse(`it resolves to ${real}, outside ${LOG_ROOT}`);
      if (/\.(gz|xz|bz2|zst|lz4|zip)$/.test(real)) refuse("compressed files are not read");
      // Opened and checked again by the adapter: the path the kernel reports for the open file must be under the
      // root, with a single link (no swap of a directory for a symlink after the check above, no hard links).
      tail = await ctx.host.readTailConfined(real, LOG_ROOT, { maxBytes: MAX_BYTES, maxLines: params.lines + 1 });
      // Checked on the descriptor that was read (no swap between check and read); nothing is returned on refusal.
      const refusal = logReadRefusal(ctx.logs_readable, real, tail.owner);
      if (refusal !== null) {
        throw new HostgateError("forbidden_path", `Refused ${JSON.stringify(params.path)}: ${refusal}.`, {
          hint: "Read another log, or ask an administrator to widen logs.readable in the daemon's configuration (docs/configuration.md).",
        });
      }
    } catch (err) {
      return uniform(err);
    }
    const lines = tail.text.split("\n");
    if (lines[lines.length - 1] === "") lines.pop();
    if (tail.startOffset > 0) lines.shift(); // the first line is probably cut
    // Redact the whole window first (keys split over lines included), then filter: a filter only ever sees
    // redacted text, so it cannot ask whether a hidden value starts with "L" (issue 12).
    const r = redactLines(lines);
    let kept = r.lines.map((text, i) => ({ text, redactions: r.per_line[i]! }));
    if (params.grep !== undefined) kept = kept.filter((l) => l.text.includes(params.grep!));
    const truncated = kept.length > params.lines;
    kept = kept.slice(-params.lines);
    // Provenance counts the secrets replaced in the lines returned (the generic pass after this sees markers only).
    ctx.redacted?.(kept.reduce((n, l) => n + l.redactions, 0));
    return { path: real, lines: kept.map((l) => l.text), file_size_bytes: tail.size, truncated };
  },
});
