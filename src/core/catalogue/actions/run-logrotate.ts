import { z } from "zod";
import { defineMutatingAction, type ActionContext } from "../action.ts";
import { HostgateError } from "../../errors.ts";
import { applyPlanned, plannedApplyOutput, renderPlanned, type PlannedChange } from "./planned-change.ts";

/** Where the configs RunLogrotate may name live (logrotate(8): the distribution's include directory). */
export const LOGROTATE_DIR = "/etc/logrotate.d";

const params = z.object({
  config: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._+-]{0,127}$/, "a file name in /etc/logrotate.d such as nginx or rsyslog (no path)")
    .describe("The name of one config file in /etc/logrotate.d, e.g. nginx"),
}).strict();

/** The log paths (or globs) a logrotate config names: the words before each `{` that start with `/` (logrotate(8)). */
export function logPathsOf(config: string): string[] {
  const out: string[] = [];
  let depth = 0;
  for (const raw of config.split("\n")) {
    const line = raw.replace(/#.*$/, "").trim();
    if (line === "") continue;
    if (depth === 0) for (const w of line.replace(/\{.*$/, "").match(/"[^"]*"|\S+/g) ?? []) if (w.startsWith("/") || w.startsWith("\"/")) out.push(w.replace(/^"|"$/g, ""));
    depth += (line.match(/\{/g) ?? []).length - (line.match(/\}/g) ?? []).length;
  }
  return out;
}

/** Literal log paths with their size now (globs are listed as written; logrotate expands them). */
async function sizes(ctx: ActionContext, paths: readonly string[]): Promise<{ path: string; size: number | null }[]> {
  return Promise.all(paths.map(async (path) => {
    if (/[*?[]/.test(path)) return { path, size: null };
    try {
      const st = await ctx.host.stat(path);
      return { path, size: st.is_file ? st.size : null };
    } catch {
      return { path, size: null };
    }
  }));
}

/**
 * RunLogrotate's plan: the config must be a regular file (not a link) directly in /etc/logrotate.d; the argv is
 * `logrotate -f /etc/logrotate.d/NAME` (forced: rotates even when the config's schedule or size would not yet).
 * The config is run alone, so settings it inherits from /etc/logrotate.conf (its global `rotate`, `create`,
 * `compress`…) do not apply: the preview says so. A forced run always has something to do; the preview shows each
 * named log's size, so the one after a rotation shows the logs emptied.
 */
async function plan(p: z.infer<typeof params>, ctx: ActionContext): Promise<PlannedChange> {
  const path = `${LOGROTATE_DIR}/${p.config}`;
  let st;
  try {
    st = await ctx.host.stat(path);
  } catch (err) {
    if (err instanceof HostgateError && err.code === "not_found") throw new HostgateError("not_found", `No logrotate config ${path}.`, { hint: `Name a file of ${LOGROTATE_DIR} (read_log_file cannot list it; ls it with exec_on_host when exec.enabled is true, or ask the operator).` });
    throw err;
  }
  if (st.is_symlink || !st.is_file) throw new HostgateError("invalid_params", `${path} is ${st.is_symlink ? "a symbolic link" : "not a regular file"}; RunLogrotate runs only regular config files.`, { hint: "Name the file the link points to, in /etc/logrotate.d." });
  const text = await ctx.host.readText(path, { maxBytes: 64 * 1024 });
  const logs = await sizes(ctx, logPathsOf(text));
  if (logs.length === 0) throw new HostgateError("invalid_params", `${path} names no log file; there is nothing to rotate.`);
  return {
    summary: `Force logrotate for ${path}: ${logs.length} log path${logs.length === 1 ? "" : "s"}`,
    current: { config: path, config_sha256: ctx.hash.sha256Hex(text), logs },
    intended: { rotated: logs.map((l) => l.path) },
    steps: [["logrotate", "-f", path]],
    detail: [
      "logs now:",
      ...logs.map((l) => `  ${l.path}${l.size === null ? "" : ` (${l.size} bytes)`}`),
      "",
      "Run alone: global settings of /etc/logrotate.conf do not apply to this run.",
      "",
      `${path}:`,
      ...text.replace(/\n$/, "").split("\n").map((l) => `  ${l}`),
    ].join("\n"),
  };
}

/** RunLogrotate: force one logrotate config now (argv only). */
export default defineMutatingAction({
  name: "RunLogrotate",
  title: "Force a logrotate run for one config",
  description: "Rotate the logs of one /etc/logrotate.d config now (logrotate -f), e.g. to free space held by a large log. The plan shows the config and the size of each log it names.",
  params,
  output: plannedApplyOutput,
  risk_level: "medium",
  access: "mutating",
  families: "all",
  min_role: "operator",
  toolsets: ["logs"],
  host_derived: true,
  needs: ["files", "mutate"],
  preview: async (p, ctx) => renderPlanned(await plan(p, ctx)),
  apply: async (p, ctx) => applyPlanned(ctx, await plan(p, ctx), 10 * 60_000),
});
