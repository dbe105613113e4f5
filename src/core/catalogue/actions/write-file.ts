import { createTwoFilesPatch } from "diff";
import { z } from "zod";
import { defineMutatingAction, type ActionContext, type Preview } from "../action.ts";
import { HostgateError } from "../../errors.ts";
import { utf8Length } from "../../limits.ts";
import { checkWritePath, refuseForbidden } from "./write-path-rules.ts";
import { writeRisk } from "./write-path-risk.ts";
import { highestRisk } from "../../risk-level.ts";

/** Largest new content and largest current file WriteFile handles, in bytes (UTF-8). */
export const MAX_FILE_BYTES = 1024 * 1024;
/** Mode of a file WriteFile creates when `mode` is not given. */
const DEFAULT_MODE = 0o644;

/** `420` → `"0644"`. */
export function octalMode(mode: number): string {
  return mode.toString(8).padStart(4, "0");
}

/** The file as it is now. `sha256` is over its content as UTF-8 text (see Hasher); null fields when absent. */
export const currentFileSchema = z.object({
  exists: z.boolean(),
  sha256: z.string().nullable(),
  size: z.number().nullable(),
  mode: z.string().nullable(),
  /** The parent directory with every symlink resolved: part of the preview hash, so a directory swapped after approval is plan_changed. */
  real_dir: z.string(),
  /** Why the write cannot be applied (approver only; apply refuses). Absent when it can. */
  blocked: z.string().optional(),
});
type CurrentFile = z.infer<typeof currentFileSchema>;

const params = z.object({
  path: z.string().min(1).max(1024).describe("Absolute, normalised path of the file to create or replace"),
  content: z.string().max(MAX_FILE_BYTES).describe("The complete new content (UTF-8), not a patch"),
  mode: z.string().regex(/^[01]?[0-7]{3}$/, "octal permission bits such as 0644; setuid/setgid are not allowed").optional()
    .describe("Octal permission bits, e.g. 0644. Default: keep the existing file's mode, 0644 for a new file"),
}).strict();

/**
 * Why a write cannot be applied, in the approver's words (the directory is missing, the target is a symlink…).
 * Thrown by `inspect`; `preview` turns it into a blocked preview instead of an error to the model.
 */
class Blocked extends Error {}

/**
 * Reads the file's current state and text; `Blocked` for a missing or non-directory parent, a resolved path
 * hostgate protects, a symlink, a non-regular file and a file over 1 MiB.
 */
async function inspect(path: string, ctx: ActionContext): Promise<{ current: CurrentFile; text: string }> {
  const slash = path.lastIndexOf("/");
  const dir = path.slice(0, slash) || "/";
  let realDir: string;
  try {
    realDir = await ctx.host.realPath(dir);
  } catch (err) {
    if (err instanceof HostgateError && err.code === "not_found") throw new Blocked(`the directory ${dir} does not exist (WriteFile does not create directories)`);
    throw err;
  }
  if (!(await ctx.host.stat(realDir)).is_directory) throw new Blocked(`${dir} is not a directory`);
  try {
    refuseForbidden(path, `${realDir === "/" ? "" : realDir}/${path.slice(slash + 1)}`, ctx.protected_paths);
  } catch (err) {
    if (err instanceof HostgateError) throw new Blocked(`${err.message} (after resolving ${dir} to ${realDir})`);
    throw err;
  }
  let st;
  try {
    st = await ctx.host.stat(path);
  } catch (err) {
    if (err instanceof HostgateError && err.code === "not_found") return { current: { exists: false, sha256: null, size: null, mode: null, real_dir: realDir }, text: "" };
    throw err;
  }
  if (st.is_symlink) throw new Blocked(`${path} is a symlink; hostgate does not write through symlinks (write its target path instead)`);
  if (!st.is_file) throw new Blocked(`${path} exists and is not a regular file`);
  if (st.size > MAX_FILE_BYTES) throw new Blocked(`${path} is ${st.size} bytes, larger than ${MAX_FILE_BYTES}, the most WriteFile replaces`);
  const text = await ctx.host.readText(path);
  return { current: { exists: true, sha256: ctx.hash.sha256Hex(text), size: st.size, mode: st.mode === undefined ? null : octalMode(st.mode), real_dir: realDir }, text };
}

/** Unified diff with a/ b/ labels and 3 lines of context, or a one-line note for binary content. */
export function renderDiff(path: string, before: string, after: string, existed: boolean): string {
  if (before.includes("\0") || after.includes("\0")) return `Binary file changes: ${existed ? `a${path}` : "/dev/null"} → b${path} (content not shown)\n`;
  if (before === after) return "(content unchanged)\n";
  const patch = createTwoFilesPatch(existed ? `a${path}` : "/dev/null", `b${path}`, before, after, undefined, undefined, { context: 3 });
  return patch.replace(/^=+\n/, "");
}

/**
 * WriteFile: create or replace one file with complete new content. The preview is a unified diff plus the
 * current and intended hash, size and mode; apply writes atomically with the precondition that the file
 * still has the content hash the approved preview showed (or still does not exist).
 */
export default defineMutatingAction({
  name: "WriteFile",
  title: "Write a file",
  description: "Create or replace one file with the given complete content (atomic rename; existing mode and owner kept unless `mode` is given). The approver sees a unified diff against the current file; the plan shows you only the intended content's hash, size and line count. Paths that run code as root or grant access (cron, systemd units, sshd config, authorized_keys, profile.d, sysctl.d, modprobe.d, udev, PAM) plan at high or critical risk with a named warning. Refuses account databases, sudoers, /boot, /proc, /sys, /dev, hostgate's own state, runtime and configuration directories, private keys, symlinks and files over 1 MiB.",
  params,
  output: z.object({ path: z.string(), sha256: z.string(), size: z.number(), mode: z.string(), created: z.boolean() }),
  risk_level: "high",
  access: "mutating",
  families: "all",
  min_role: "operator",
  toolsets: ["host"],
  host_derived: true,
  async preview(p, ctx): Promise<Preview> {
    checkWritePath(p.path, ctx.protected_paths);
    const size = utf8Length(p.content);
    if (size > MAX_FILE_BYTES) throw new HostgateError("invalid_params", `content is ${size} bytes; the limit is ${MAX_FILE_BYTES}.`);
    // The model is told the same whatever the host holds (below), and so is its plan's success: a write that
    // cannot be applied (missing directory, symlink, device, large file, a protected resolved path) is still
    // planned, with the reason for the approver alone, and apply refuses it. An error here would tell the model
    // whether a path it cannot read exists and what it is (red team, issue 12).
    let inspected: { current: CurrentFile; text: string };
    try {
      inspected = await inspect(p.path, ctx);
    } catch (err) {
      if (!(err instanceof Blocked)) throw err;
      inspected = { current: { exists: false, sha256: null, size: null, mode: null, real_dir: "", blocked: err.message }, text: "" };
    }
    const { current, text } = inspected;
    const mode = p.mode ?? current.mode ?? octalMode(DEFAULT_MODE);
    const intended = { sha256: ctx.hash.sha256Hex(p.content), size, mode: octalMode(parseInt(mode, 8)) };
    const dir = p.path.slice(0, p.path.lastIndexOf("/")) || "/";
    const where = current.real_dir === dir || current.blocked !== undefined ? "" : ` (directory resolves to ${current.real_dir})`;
    const head = current.blocked !== undefined
      ? `CANNOT BE APPLIED: ${current.blocked}. Reject this step; execute would refuse it.`
      : current.exists
      ? `Replace ${p.path}${where}: ${current.size} → ${size} bytes, mode ${current.mode ?? "?"} → ${intended.mode}`
      : `Create ${p.path}${where}: ${size} bytes, mode ${intended.mode}`;
    // The model is told only what it asked for: the intended content's hash, size and line count, and the mode
    // it gave. Whether the file exists, its content, hash, size and mode are for the approver alone (issue 12: a plan
    // must not be a way to read or probe root-only files). Where a directory link leads is told (review s24): the
    // step's risk depends on it, and readlink(2) needs no permission on the link itself.
    const lineCount = p.content === "" ? 0 : p.content.split("\n").length - (p.content.endsWith("\n") ? 1 : 0);
    // Paths that run code as root or grant access (write-path-risk.ts): the step's risk and named warnings, from the
    // path as given and the model's own content, and from the path with its directory resolved when a link makes it
    // another one (review s24: the approver was warned of /etc/cron.d through a link while the step stayed high).
    // Both judge the same target the same way; the model is told where the directory resolves (below).
    const risk = writeRisk(p.path, p.content);
    const linked = current.real_dir !== "" && current.real_dir !== dir;
    const resolved = linked ? writeRisk(`${current.real_dir === "/" ? "" : current.real_dir}/${p.path.slice(p.path.lastIndexOf("/") + 1)}`, p.content) : { risk: null, warnings: [] };
    const approverWarnings = [...risk.warnings, ...resolved.warnings.map((w) => `(through the resolved directory ${current.real_dir}) ${w}`)];
    const levels = [risk.risk, resolved.risk].filter((r): r is NonNullable<typeof r> => r !== null);
    const stepRisk = levels.length === 0 ? null : highestRisk(levels);
    const warnText = approverWarnings.length > 0 ? `\nWARNINGS:\n${approverWarnings.map((w) => `  !! ${w}`).join("\n")}\n` : "";
    const modeForModel = p.mode === undefined ? "the existing file's mode (0644 for a new file)" : intended.mode;
    const agentSummary = `Write ${p.path}: ${size} bytes in ${lineCount} line${lineCount === 1 ? "" : "s"}, mode ${modeForModel}`;
    return {
      summary: head,
      text: `${head}\ncurrent sha256: ${current.sha256 ?? "(absent)"}\nnew sha256:     ${intended.sha256}\n${warnText}\n${renderDiff(p.path, text, p.content, current.exists)}`,
      current,
      intended,
      ...(approverWarnings.length > 0 ? { warnings: approverWarnings } : {}),
      ...(stepRisk === null ? {} : { risk_level: stepRisk }),
      agent: {
        summary: agentSummary,
        text: `${agentSummary}\nnew sha256: ${intended.sha256}\n${linked ? `${dir} resolves to ${current.real_dir} (a symbolic link): the write goes there, and is judged as a write there.\n` : ""}The approver sees the file as it is now and the full diff; none of it is shown here.`,
        intended: { sha256: intended.sha256, size, lines: lineCount, mode: p.mode === undefined ? null : intended.mode },
      },
    };
  },
  async apply(p, ctx, approved) {
    const seen = currentFileSchema.safeParse(approved.current);
    if (!seen.success) throw new HostgateError("internal_error", "WriteFile.apply needs the approved preview's `current` file state.");
    checkWritePath(p.path, ctx.protected_paths);
    // The reason is the approver's (the preview); the model learns only that this approved step was refused.
    if (seen.data.blocked !== undefined) throw new HostgateError("precondition_failed", `WriteFile of ${p.path} cannot be applied; the approver's preview says why. Nothing was written.`, { hint: "Ask the user what the approval screen said, or pick another path." });
    // Without an explicit mode the mutator keeps the replaced file's mode (or uses 0644 for a new file).
    const explicit = p.mode === undefined ? {} : { mode: parseInt(p.mode, 8) };
    // Write into the directory the human approved, resolved, and only if it still resolves there.
    const target = `${seen.data.real_dir === "/" ? "" : seen.data.real_dir}/${p.path.slice(p.path.lastIndexOf("/") + 1)}`;
    await ctx.mutator.writeFileAtomic(target, p.content, { ...explicit, expectedSha256: seen.data.exists ? seen.data.sha256 : null, expectedRealDir: seen.data.real_dir });
    const mode = p.mode ?? seen.data.mode ?? octalMode(DEFAULT_MODE);
    return { path: p.path, sha256: ctx.hash.sha256Hex(p.content), size: utf8Length(p.content), mode: octalMode(parseInt(mode, 8)), created: !seen.data.exists };
  },
});
