import { z } from "zod";
import { defineMutatingAction, type ActionContext, type Preview } from "../action.ts";
import { HostgateError } from "../../errors.ts";
import { isReadOnlyMount, mountOf, parseMountinfo } from "../../host/mountinfo.ts";
import { SYSCTL_KEY, sysctlKeyPath } from "../../host/sysctl-key.ts";
import { CODE_RUNNING_SYSCTLS } from "./write-path-risk.ts";

/** Where SetSysctl keeps its persistent settings: one drop-in per key, read by systemd-sysctl / `sysctl --system` at boot. */
export const SYSCTL_DROPIN_DIR = "/etc/sysctl.d";

/**
 * Keys whose value makes the kernel run a program as root (core_pattern with `|`, the module loader, hotplug,
 * poweroff/reboot helpers): a sysctl must not be a way to run a command. The one list: write-path-risk.ts.
 */
const REFUSED_KEYS = CODE_RUNNING_SYSCTLS;

/** The drop-in file of one key: `/etc/sysctl.d/90-hostgate-<key>.conf`. */
export function dropInPath(key: string): string {
  return `${SYSCTL_DROPIN_DIR}/90-hostgate-${key}.conf`;
}

/** The drop-in's content for `key = value`. */
export function dropInContent(key: string, value: string): string {
  return `# Set by hostgate (SetSysctl). Remove this file to stop applying it at boot.\n${key} = ${value}\n`;
}

/** A value as the kernel prints it, for comparing: runs of blanks (the kernel separates fields with tabs) as one space. */
export function normaliseValue(v: string): string {
  return v.trim().split(/\s+/).join(" ");
}

const params = z.object({
  key: z.string().regex(SYSCTL_KEY, "a sysctl key: dotted words such as net.ipv4.ip_forward").describe("Dotted sysctl key, e.g. net.ipv4.ip_forward"),
  value: z.string().min(1).max(256).regex(/^[^\n\r\0]+$/, "one line").describe("New value as `sysctl -n` prints it (fields separated by spaces)"),
  persist: z.boolean().default(true).describe("Also write /etc/sysctl.d/90-hostgate-<key>.conf so the value survives a reboot (default true)"),
}).strict();
type Params = z.infer<typeof params>;

/** The state SetSysctl changes: the live value and the key's drop-in (content, or null when absent). */
const stateSchema = z.object({ live: z.string(), dropin: z.string().nullable() });
type State = z.infer<typeof stateSchema>;

/**
 * `invalid_params` when the mount holding the key's /proc/sys file is read-only for this host's processes (a
 * container's /proc/sys usually is: systemd-nspawn and Docker bind it read-only, /proc/sys/net writable only with
 * a network namespace of its own), so the preview says so before anyone approves a write that would fail.
 */
async function refuseReadOnlyMount(key: string, path: string, ctx: ActionContext): Promise<void> {
  const m = mountOf(parseMountinfo(await ctx.host.readText("/proc/self/mountinfo")), path);
  if (m !== null && isReadOnlyMount(m)) {
    throw new HostgateError("invalid_params", `${key} cannot be set on this host: ${m.mount_point} is mounted read-only here (as in a container).`, {
      hint: "Set it on the machine that runs the container, or give the container a writable /proc/sys (systemd-nspawn: its own network namespace for net.* keys).",
    });
  }
}

/** Reads the key's live value and its drop-in; `invalid_params` for a key the kernel lacks or cannot change. */
async function readState(p: Params, ctx: ActionContext): Promise<State> {
  const path = sysctlKeyPath(p.key, "write");
  let live: string;
  try {
    const st = await ctx.host.stat(path);
    if (!st.is_file) throw new HostgateError("invalid_params", `${p.key} is a group of keys, not one key.`, { hint: "Name one key, e.g. net.ipv4.ip_forward." });
    if (st.mode !== undefined && (st.mode & 0o222) === 0) throw new HostgateError("invalid_params", `${p.key} is read-only: the kernel does not let it be changed.`);
    // vm.drop_caches, vm.compact_memory…: a trigger, not a setting. It has no value to read, so there is nothing to
    // preview, compare, persist or revert; the daemon's privilege is not the reason (root cannot read it either).
    if (st.mode !== undefined && (st.mode & 0o444) === 0) {
      throw new HostgateError("invalid_params", `${p.key} is write-only: writing it makes the kernel do something once (it is not a setting), and it has no value to read, so SetSysctl cannot preview, persist or revert it.`, {
        hint: "hostgate has no action for kernel triggers such as vm.drop_caches; if it is really needed, an administrator runs it at the console.",
      });
    }
    live = await ctx.host.readText(path, { maxBytes: 4096 });
  } catch (err) {
    if (err instanceof HostgateError && err.code === "not_found") throw new HostgateError("invalid_params", `This kernel has no sysctl ${p.key}.`, { hint: "Check the name with `sysctl -a` (or GetSysctl); a module may have to be loaded first." });
    throw err;
  }
  await refuseReadOnlyMount(p.key, path, ctx);
  let dropin: string | null = null;
  try {
    dropin = await ctx.host.readText(dropInPath(p.key), { maxBytes: 64 * 1024 });
  } catch (err) {
    if (!(err instanceof HostgateError && err.code === "not_found")) throw err;
  }
  return { live: normaliseValue(live), dropin };
}

/** Puts the drop-in back to `content` (null: removes it), through the mutator only. */
async function writeDropIn(key: string, content: string | null, ctx: ActionContext): Promise<void> {
  const path = dropInPath(key);
  if (content !== null) {
    await ctx.mutator.writeFileAtomic(path, content, { mode: 0o644 });
    return;
  }
  let st;
  try {
    st = await ctx.host.stat(path);
  } catch (err) {
    if (err instanceof HostgateError && err.code === "not_found") return;
    throw err;
  }
  if (st.dev === undefined || st.ino === undefined) throw new HostgateError("unavailable", `Cannot identify ${path} on this host to remove it.`);
  await ctx.mutator.removeFile(path, { how: "delete", expectedRealDir: await ctx.host.realPath(SYSCTL_DROPIN_DIR), expectedDev: st.dev, expectedIno: st.ino });
}

/**
 * SetSysctl: one kernel parameter, live through /proc/sys and (by default) persistently in a drop-in of its own
 * under /etc/sysctl.d. Network keys (`net.*`) can cut the operator off, so they revert unless confirmed
 * (issue 24). The preview says "nothing to do" when the live value and the drop-in already match.
 */
export default defineMutatingAction({
  name: "SetSysctl",
  title: "Set a kernel parameter",
  description: "Set one sysctl live (/proc/sys) and persistently (/etc/sysctl.d/90-hostgate-<key>.conf unless persist is false). net.* keys revert by themselves unless the human confirms in time. Refuses read-only keys and keys that make the kernel run a program (core_pattern, modprobe, hotplug).",
  params,
  output: z.object({ key: z.string(), value: z.string(), previous: z.string(), dropin: z.string().nullable() }),
  risk_level: "high",
  access: "mutating",
  families: "all",
  min_role: "operator",
  toolsets: ["kernel"],
  host_derived: false,
  needs: ["files", "mutate"],
  async preview(p, ctx): Promise<Preview> {
    if (REFUSED_KEYS.has(p.key)) throw new HostgateError("invalid_params", `SetSysctl refuses ${p.key}: its value can make the kernel run a program as root.`, { hint: "hostgate does not change it by any action; if it must change, an administrator does it at the console." });
    const current = await readState(p, ctx);
    const value = normaliseValue(p.value);
    const intended: State = { live: value, dropin: p.persist ? dropInContent(p.key, value) : current.dropin };
    const liveSame = current.live === value;
    const dropinSame = intended.dropin === current.dropin;
    const file = dropInPath(p.key);
    const summary = liveSame && dropinSame
      ? `Nothing to do: ${p.key} is already ${value}${p.persist ? ` (and ${file} says so)` : ""}`
      : `Set ${p.key}: ${current.live} → ${value}${p.persist ? (dropinSame ? "" : `; ${current.dropin === null ? "create" : "replace"} ${file}`) : " (live only, not persisted)"}`;
    const lines = [summary, `live (/proc/sys): ${current.live} → ${value}`];
    if (p.persist) lines.push(`drop-in ${file}: ${current.dropin === null ? "(absent)" : "present"} → ${dropinSame ? "unchanged" : `${p.key} = ${value}`}`);
    return { summary, text: `${lines.join("\n")}\n`, current, intended };
  },
  async apply(p, ctx, approved) {
    const seen = stateSchema.safeParse(approved.current);
    const want = stateSchema.safeParse(approved.intended);
    if (!seen.success || !want.success) throw new HostgateError("internal_error", "SetSysctl.apply needs the approved preview's current and intended state.");
    if (seen.data.live !== want.data.live) await ctx.mutator.writeSysctl(p.key, want.data.live);
    if (want.data.dropin !== seen.data.dropin) await writeDropIn(p.key, want.data.dropin, ctx);
    return { key: p.key, value: want.data.live, previous: seen.data.live, dropin: p.persist ? dropInPath(p.key) : null };
  },
  revert: {
    applies: (p) => p.key.startsWith("net."),
    capture: (p, ctx) => readState(p, ctx),
    async restore(p, ctx, prior) {
      const was = stateSchema.parse(prior);
      const now = await readState(p, ctx);
      if (now.live !== was.live) await ctx.mutator.writeSysctl(p.key, was.live);
      if (now.dropin !== was.dropin) await writeDropIn(p.key, was.dropin, ctx);
    },
  },
});
