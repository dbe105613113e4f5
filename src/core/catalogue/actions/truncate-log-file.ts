import { defineMutatingAction } from "../action.ts";
import { applyLogTarget, logTargetOutput, logTargetParams, logTargetPreview } from "./log-target.ts";

/**
 * TruncateLogFile: cut one regular file under /var/log to 0 bytes in place, so the space comes back even while
 * a process keeps writing it (logrotate's copytruncate without the copy). Same confinement as DeleteLogFile;
 * apply truncates only the file the approver saw (same inode), opened without following links. Issue 22.
 */
export default defineMutatingAction({
  name: "TruncateLogFile",
  title: "Truncate a log file",
  description: "Truncate one regular file under /var/log to 0 bytes in place: frees a live log's space at once, even while a process writes it. Its content is lost. No symlinks, no hard-linked files, no journal files (use VacuumJournal).",
  params: logTargetParams,
  output: logTargetOutput,
  risk_level: "medium",
  access: "mutating",
  families: "all",
  min_role: "operator",
  toolsets: ["logs"],
  host_derived: false,
  preview: (p, ctx) => logTargetPreview(p.path, "truncate", ctx),
  apply: (p, ctx, approved) => applyLogTarget(p.path, "truncate", ctx, approved),
});
