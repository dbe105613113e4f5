import { z } from "zod";
import { defineMutatingAction, type ActionContext } from "../action.ts";
import { HostgateError } from "../../errors.ts";
import { parseCmdline, parseProcStat, parseProcStatus } from "../../host/proc-pid.ts";
import type { SignalName } from "../../../ports/host-mutator.ts";
import { bootTimeSeconds } from "../../host/proc-stat.ts";
import { readUsers, USER_HZ } from "./process-table.ts";

/** The signals SignalProcess may send, without the `SIG` prefix. */
export const SIGNALS = ["TERM", "KILL", "HUP", "INT", "USR1", "USR2", "STOP", "CONT"] as const;

/**
 * The identity of the target process. `start_ticks` (field 22 of /proc/PID/stat, clock ticks after boot)
 * distinguishes it from any later process that reuses the pid, so the preview — and the preview_hash —
 * change when the pid is reused. Volatile fields (state, cpu, memory, ppid) are left out so the preview
 * stays stable while the same process lives.
 */
export const targetSchema = z.object({
  pid: z.number(),
  name: z.string(),
  user: z.string().nullable(),
  uid: z.number().nullable(),
  argv0: z.string().nullable(),
  start_ticks: z.number(),
  started_at: z.string(),
});
type Target = z.infer<typeof targetSchema>;

/** Reads the target's identity from /proc; `not_found` when there is no such process. */
async function readTarget(ctx: ActionContext, pid: number): Promise<Target> {
  const missing = (): never => {
    throw new HostgateError("not_found", `No process with pid ${pid}.`, { hint: "Call list_processes to find current pids, then plan again." });
  };
  let stat;
  let status;
  let cmdline;
  try {
    stat = parseProcStat(await ctx.host.readText(`/proc/${pid}/stat`));
    status = parseProcStatus(await ctx.host.readText(`/proc/${pid}/status`));
    cmdline = parseCmdline(await ctx.host.readText(`/proc/${pid}/cmdline`, { maxBytes: 16384 }));
  } catch (err) {
    if (err instanceof HostgateError && err.code === "not_found") missing();
    throw err;
  }
  if (!stat) return missing();
  const btime = bootTimeSeconds(await ctx.host.readText("/proc/stat"));
  const uidField = status.Uid?.split(/\s+/)[0];
  const uid = uidField === undefined ? null : Number(uidField);
  return {
    pid,
    name: status.Name ?? stat.comm,
    user: uid === null ? null : (await readUsers(ctx)).get(uid) ?? null,
    uid,
    argv0: cmdline[0] ?? null,
    start_ticks: stat.start_ticks,
    started_at: new Date((btime + stat.start_ticks / USER_HZ) * 1000).toISOString(),
  };
}

/** Refuses pid 1 (init: killing it panics the kernel) and the daemon's own pid. */
function refuseProtected(ctx: ActionContext, pid: number): void {
  if (pid === 1) throw new HostgateError("invalid_params", "Refused to signal pid 1 (init); use a service action instead.");
  if (pid === ctx.self_pid) throw new HostgateError("invalid_params", `Refused to signal pid ${pid}: it is the hostgate daemon itself.`);
}

/**
 * SignalProcess: send one signal to one process. The preview names the process and embeds its start
 * time; apply re-reads the start time immediately before kill(2) and refuses (`precondition_failed`) if
 * the pid now belongs to another process. A pid reused in the microseconds between that check and the
 * kill is not excluded (Node has no pidfd_send_signal).
 */
export default defineMutatingAction({
  name: "SignalProcess",
  title: "Signal a process",
  description: "Send TERM, KILL, HUP, INT, USR1, USR2, STOP or CONT to one process by pid. The plan shows the process (name, user, argv[0], start time); if the pid is reused by another process before execution, execution is refused. pid 1 and the hostgate daemon are refused.",
  params: z.object({
    pid: z.number().int().min(1).max(4_194_304),
    signal: z.enum(SIGNALS),
  }).strict(),
  output: z.object({ pid: z.number(), signal: z.string(), name: z.string() }),
  risk_level: "high",
  access: "mutating",
  families: "all",
  min_role: "operator",
  toolsets: ["host"],
  host_derived: true,
  async preview(p, ctx) {
    refuseProtected(ctx, p.pid);
    const target = await readTarget(ctx, p.pid);
    const summary = `Send SIG${p.signal} to pid ${p.pid} (${target.name})`;
    const text = [
      summary,
      `process: ${target.name}, user ${target.user ?? target.uid ?? "?"}, argv[0] ${target.argv0 ?? "(none: kernel thread?)"}`,
      `started: ${target.started_at} (start_ticks ${target.start_ticks})`,
    ].join("\n");
    return { summary, text: `${text}\n`, current: target, intended: { signal: `SIG${p.signal}` } };
  },
  async apply(p, ctx, approved) {
    refuseProtected(ctx, p.pid);
    const seen = targetSchema.safeParse(approved.current);
    if (!seen.success) throw new HostgateError("internal_error", "SignalProcess.apply needs the approved preview's `current` process.");
    const now = await readTarget(ctx, p.pid);
    if (now.start_ticks !== seen.data.start_ticks) {
      throw new HostgateError("precondition_failed", `pid ${p.pid} now belongs to another process (${now.name}, started ${now.started_at}).`, {
        hint: "The approved process has exited; plan again if the new one should be signalled.",
      });
    }
    const signal = `SIG${p.signal}` as SignalName;
    await ctx.mutator.signal(p.pid, signal);
    return { pid: p.pid, signal, name: now.name };
  },
});
