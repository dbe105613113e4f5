import { z } from "zod";
import { defineMutatingAction, type ActionContext } from "../action.ts";
import { HostgateError } from "../../errors.ts";
import { normalizeUnitArg } from "../../systemd/unit-name.ts";
import { refuseProtectedUnit } from "./protected-units.ts";
import { unitParam } from "./systemd-schemas.ts";

/** The one drop-in hostgate owns per service; a later file (a higher number) or system.control still wins. */
export const LIMITS_DROP_IN = "90-hostgate-limits.conf";

const params = z.strictObject({
  unit: unitParam,
  memory_max: z.string().regex(/^([1-9][0-9]{0,15}[KMGT]?|infinity)$/, "bytes with an optional K/M/G/T suffix (powers of 1024), or infinity").optional().describe("MemoryMax=, e.g. 512M"),
  cpu_quota_percent: z.number().int().min(1).max(100_000).optional().describe("CPUQuota=, % of one CPU"),
  tasks_max: z.union([z.number().int().min(1).max(4_194_304), z.literal("infinity")]).optional().describe("TasksMax="),
});
type Params = z.infer<typeof params>;

/** Where the drop-in lives for `unit` (system manager only: /etc/systemd/system/<unit>.d/). */
export function limitsPath(unit: string): string {
  return `/etc/systemd/system/${unit}.d/${LIMITS_DROP_IN}`;
}

/** The drop-in's full text for the given limits (systemd.resource-control(5)); only the limits given appear. */
export function limitsDropIn(p: Params): string {
  const lines = ["# Written by hostgate (SetUnitResourceLimits). Change it through hostgate, or delete it and run daemon-reload.", "[Service]"];
  if (p.memory_max !== undefined) lines.push(`MemoryMax=${p.memory_max}`);
  if (p.cpu_quota_percent !== undefined) lines.push(`CPUQuota=${p.cpu_quota_percent}%`);
  if (p.tasks_max !== undefined) lines.push(`TasksMax=${p.tasks_max}`);
  return `${lines.join("\n")}\n`;
}

/** A line diff of two small files: `-` lines only in `a`, `+` only in `b`, in file order (enough for a drop-in). */
export function lineDiff(a: string | null, b: string): string {
  const old = a === null ? [] : a.replace(/\n$/, "").split("\n");
  const neu = b.replace(/\n$/, "").split("\n");
  return [...old.filter((l) => !neu.includes(l)).map((l) => `-${l}`), ...neu.filter((l) => !old.includes(l)).map((l) => `+${l}`)].join("\n");
}

async function currentText(ctx: ActionContext, path: string): Promise<string | null> {
  try {
    return await ctx.host.readText(path, { maxBytes: 64 * 1024 });
  } catch (err) {
    if (err instanceof HostgateError && err.code === "not_found") return null;
    throw err;
  }
}

function resolve(p: Params): string {
  const unit = normalizeUnitArg(p.unit, "service", { requireType: "service" });
  if (p.memory_max === undefined && p.cpu_quota_percent === undefined && p.tasks_max === undefined) {
    throw new HostgateError("invalid_params", "Give at least one limit: memory_max, cpu_quota_percent or tasks_max.", { hint: "e.g. { unit: \"nginx.service\", memory_max: \"512M\" }" });
  }
  return unit;
}

/**
 * SetUnitResourceLimits: writes /etc/systemd/system/<unit>.d/90-hostgate-limits.conf with MemoryMax=, CPUQuota=
 * and TasksMax= (only those given: the file is replaced whole), then reloads the manager, which applies cgroup
 * limits to a running unit. The preview shows the drop-in's line diff; the same limits again are nothing to do.
 */
export const SetUnitResourceLimits = defineMutatingAction({
  name: "SetUnitResourceLimits",
  title: "Set a service's resource limits",
  description: "Writes a drop-in with MemoryMax/CPUQuota/TasksMax for one service (the file holds exactly the limits given), then daemon-reload. Preview shows the drop-in diff.",
  params,
  output: z.object({ path: z.string(), changed: z.boolean(), outcome: z.object({ unit: z.string(), operation: z.string(), result: z.string() }) }),
  risk_level: "high",
  access: "mutating",
  families: "all",
  min_role: "operator",
  needs: ["files", "systemd", "mutate"],
  toolsets: ["systemd"],
  host_derived: true,
  async preview(p, ctx) {
    const unit = resolve(p);
    await refuseProtectedUnit(ctx, unit, "limit");
    const state = await ctx.units.system.getUnit(unit);
    const path = limitsPath(unit);
    const before = await currentText(ctx, path);
    const after = limitsDropIn(p);
    const same = before === after;
    const diff = same ? "(no change)" : lineDiff(before, after);
    return {
      summary: `limit ${unit}${same ? ": nothing to do" : ""}`,
      text: `${same ? "nothing to do: " : ""}${path} (${before === null ? "new file" : "replaced"}), then daemon-reload; ${unit} is ${state.active_state}:\n${diff}`,
      current: { path, text: before, sha256: before === null ? null : ctx.hash.sha256Hex(before) },
      intended: { path, text: after, nothing_to_do: same },
    };
  },
  async apply(p, ctx, approved) {
    const unit = resolve(p);
    await refuseProtectedUnit(ctx, unit, "limit");
    const path = limitsPath(unit);
    const seen = (approved.current as { sha256: string | null }).sha256;
    const text = limitsDropIn(p);
    const dir = path.slice(0, path.lastIndexOf("/"));
    const mk = await ctx.mutator.run(["mkdir", "-p", "-m", "0755", "--", dir], { timeoutMs: 10_000 });
    if (mk.exit_code !== 0) throw new HostgateError("action_failed", `mkdir ${dir} failed: ${mk.stderr.trim()}`, { details: { exit_code: mk.exit_code } });
    const changed = seen === null || seen !== ctx.hash.sha256Hex(text);
    if (changed) await ctx.mutator.writeFileAtomic(path, text, { expectedSha256: seen, mode: 0o644 });
    const outcome = await ctx.units.system.reloadManager();
    return { path, changed, outcome };
  },
});
