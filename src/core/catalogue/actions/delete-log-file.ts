import { defineMutatingAction } from "../action.ts";
import { applyLogTarget, logTargetOutput, logTargetParams, logTargetPreview } from "./log-target.ts";

/**
 * DeleteLogFile: unlink one regular file under /var/log (rotated logs: `*.1`, `*.gz`), never through a symlink,
 * never a hard-linked file, hostgate's own files or the journal's (VacuumJournal). Confined as ReadLogFile is;
 * apply removes only the file the approver saw (same inode), through its held directory. Issue 22 (disk-full runbook).
 */
export default defineMutatingAction({
  name: "DeleteLogFile",
  title: "Delete a log file",
  description: "Delete one regular file under /var/log, typically an old rotated log (*.1, *.gz). No symlinks, no hard-linked files, no journal files (use VacuumJournal). A live log keeps its space while a process holds it open: use TruncateLogFile for those.",
  params: logTargetParams,
  output: logTargetOutput,
  risk_level: "medium",
  access: "mutating",
  families: "all",
  min_role: "operator",
  toolsets: ["logs"],
  host_derived: false,
  preview: (p, ctx) => logTargetPreview(p.path, "delete", ctx),
  apply: (p, ctx, approved) => applyLogTarget(p.path, "delete", ctx, approved),
});
