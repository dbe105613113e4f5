import { z } from "zod";
import { defineMutatingAction, type ActionContext, type Preview } from "../action.ts";
import { HostgateError } from "../../errors.ts";
import { checkSshdOption, effectiveValue, includesDropIns, SSHD_CONFIG, SSHD_DROPIN_DIR, sshdDropInContent, sshdDropInPath } from "./sshd-options.ts";

const params = z.object({
  option: z.string().min(1).max(64).regex(/^[A-Za-z0-9]+$/, "one sshd_config keyword, e.g. PasswordAuthentication").describe("sshd_config keyword from the allow-list, e.g. PasswordAuthentication"),
  value: z.string().min(1).max(128).regex(/^[^\n\r\0#]+$/, "one line, no comment").describe("Its value as sshd_config(5) writes it, e.g. no"),
}).strict();
type Params = z.infer<typeof params>;

/** The drop-in's content now (null: absent). */
const stateSchema = z.object({ dropin: z.string().nullable() });
type State = z.infer<typeof stateSchema>;

/** sshd's path: on PATH, else Debian's and Fedora's /usr/sbin/sshd; `unavailable` when neither. */
async function sshdPath(ctx: ActionContext): Promise<string> {
  const found = await ctx.host.which("sshd");
  if (found) return found;
  try {
    if ((await ctx.host.stat("/usr/sbin/sshd")).is_file) return "/usr/sbin/sshd";
  } catch {
    // not installed
  }
  throw new HostgateError("unavailable", "sshd is not installed on this host.", { hint: "Install openssh-server first." });
}

/**
 * Refuses a layout where the drop-in would be ignored or written through a link: the drop-in directory must be
 * a real directory, sshd_config must include it, the drop-in must be absent or a regular file. Returns its content.
 */
async function readState(option: string, ctx: ActionContext): Promise<State> {
  let dir;
  try {
    dir = await ctx.host.stat(SSHD_DROPIN_DIR);
  } catch (err) {
    if (err instanceof HostgateError && err.code === "not_found") throw new HostgateError("invalid_params", `${SSHD_DROPIN_DIR} does not exist on this host, so a drop-in there would not be read.`, { hint: `Create it and add \`Include ${SSHD_DROPIN_DIR}/*.conf\` at the top of ${SSHD_CONFIG} (an approved WriteFile).` });
    throw err;
  }
  if (dir.is_symlink || !dir.is_directory) throw new HostgateError("forbidden_path", `${SSHD_DROPIN_DIR} is ${dir.is_symlink ? "a symbolic link" : "not a directory"}; SetSshdOption never writes through a link.`, { hint: `Make ${SSHD_DROPIN_DIR} a plain directory.` });
  const config = await ctx.host.readText(SSHD_CONFIG, { maxBytes: 256 * 1024 });
  if (!includesDropIns(config)) throw new HostgateError("invalid_params", `${SSHD_CONFIG} does not include ${SSHD_DROPIN_DIR}/*.conf, so a drop-in there would be ignored.`, { hint: `Add \`Include ${SSHD_DROPIN_DIR}/*.conf\` at the top of ${SSHD_CONFIG} (an approved WriteFile).` });
  const path = sshdDropInPath(option);
  let st;
  try {
    st = await ctx.host.stat(path);
  } catch (err) {
    if (err instanceof HostgateError && err.code === "not_found") return { dropin: null };
    throw err;
  }
  if (st.is_symlink || !st.is_file) throw new HostgateError("forbidden_path", `${path} is ${st.is_symlink ? "a symbolic link" : "not a regular file"}; SetSshdOption never writes through a link.`, { hint: `Remove ${path} first.` });
  return { dropin: await ctx.host.readText(path, { maxBytes: 64 * 1024 }) };
}

/** Runs `sshd <args>` (validation and dumps are read-only) and returns stdout; `invalid_params` with sshd's words when it refuses. */
async function sshd(ctx: ActionContext, args: string[], via: "probe" | "mutator"): Promise<string> {
  const argv = [await sshdPath(ctx), ...args];
  const r = via === "probe" ? await ctx.host.run(argv, { timeoutMs: 10_000 }) : await ctx.mutator.run(argv, { timeoutMs: 10_000 });
  if (r.exit_code !== 0) throw new HostgateError("invalid_params", `sshd refuses the configuration: ${r.stderr.trim().slice(0, 300) || `exit ${r.exit_code ?? r.signal}`}`, { details: { argv } });
  return r.stdout;
}

/**
 * `sshd <args>` through the read-only probe for the preview; null when sshd cannot read its host keys as the
 * probe's user (an SSH host reached as a sudo user): apply checks the same with privilege.
 */
async function sshdAsProbe(ctx: ActionContext, args: string[]): Promise<string | null> {
  try {
    return await sshd(ctx, args, "probe");
  } catch (err) {
    if (err instanceof HostgateError && /no hostkeys available|Permission denied/.test(err.message)) return null;
    throw err;
  }
}

/** Writes the drop-in back to `content` (null: removes it), never through a link. */
async function putDropIn(option: string, content: string | null, seen: string | null, ctx: ActionContext): Promise<void> {
  const path = sshdDropInPath(option);
  if (content !== null) {
    await ctx.mutator.writeFileAtomic(path, content, { mode: 0o644, expectedRealDir: SSHD_DROPIN_DIR, expectedSha256: seen === null ? null : ctx.hash.sha256Hex(seen) });
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
  await ctx.mutator.removeFile(path, { how: "delete", expectedRealDir: SSHD_DROPIN_DIR, expectedDev: st.dev, expectedIno: st.ino });
}

/**
 * Makes the running sshd re-read its configuration: SIGHUP to the pid in its PidFile (`sshd -T`'s `pidfile`),
 * as `systemctl reload ssh` does, after checking /proc/<pid>/comm is sshd. Returns the pid, or null when no sshd
 * runs (the drop-in then applies when it starts; every new connection re-reads it anyway).
 */
async function reload(ctx: ActionContext, dump: string): Promise<number | null> {
  const pidFile = effectiveValue(dump, "pidfile");
  if (pidFile === null || pidFile === "none") return null;
  let pid: number;
  try {
    pid = Number((await ctx.host.readText(pidFile, { maxBytes: 64 })).trim());
    if (!Number.isInteger(pid) || pid <= 1) return null;
    if ((await ctx.host.readText(`/proc/${pid}/comm`, { maxBytes: 64, singleRead: true })).trim() !== "sshd") return null;
  } catch {
    return null;
  }
  await ctx.mutator.signal(pid, "SIGHUP");
  return pid;
}

/**
 * Puts the state `want` in place and checks sshd takes it: `sshd -t`, the effective value (`expect`, when given),
 * then reload. On failure an apply (`undo`) takes the write back; a restore keeps the prior state it put back and
 * does not reload (the transaction then ends `unknown`).
 */
async function install(p: Params, want: string | null, seen: string | null, expect: string | null, undo: boolean, ctx: ActionContext): Promise<number | null> {
  await putDropIn(p.option, want, seen, ctx);
  let dump: string;
  try {
    await sshd(ctx, ["-t"], "mutator");
    dump = await sshd(ctx, ["-T"], "mutator");
    const now = effectiveValue(dump, p.option);
    if (expect !== null && now !== expect) throw new HostgateError("action_failed", `After writing ${sshdDropInPath(p.option)}, sshd's effective ${p.option} is ${now ?? "(none)"}, not ${expect}: an earlier line of ${SSHD_CONFIG} (before its Include) sets it.`, { hint: `Remove that line from ${SSHD_CONFIG} first.` });
  } catch (err) {
    if (!undo) throw new HostgateError("revert_failed", `The prior ${sshdDropInPath(p.option)} is back, but sshd refuses the configuration now, so sshd was not reloaded: ${err instanceof Error ? err.message : String(err)}`);
    await putDropIn(p.option, seen, want, ctx);
    if (err instanceof HostgateError && err.code === "invalid_params") throw new HostgateError("action_failed", `${err.message} (the drop-in was taken back; sshd was not reloaded)`);
    throw err;
  }
  return reload(ctx, dump);
}

/**
 * SetSshdOption: one global sshd option from an allow-list, as a drop-in of its own that sshd reads first
 * (`/etc/ssh/sshd_config.d/01-hostgate-<option>.conf`). Checked with `sshd -T -o` (the candidate) at preview and
 * apply, `sshd -t` and `sshd -T` after writing (undone when either disagrees), then sshd is reloaded by SIGHUP.
 * Reverts unless confirmed: an sshd that locks you out is the classic case. sshd is spawned (argv only): only
 * sshd itself can say whether a configuration is valid.
 */
export default defineMutatingAction({
  name: "SetSshdOption",
  title: "Set an sshd option",
  description: "Set one global sshd option (allow-list: PermitRootLogin, PasswordAuthentication, MaxAuthTries, ClientAliveInterval…) as a drop-in in /etc/ssh/sshd_config.d, checked with sshd -t (spawned), then reload sshd. Reverts by itself unless the human confirms in time. Refuses Match, ForceCommand, AuthorizedKeysCommand and anything that runs a program.",
  params,
  output: z.object({ option: z.string(), value: z.string(), dropin: z.string(), reloaded_pid: z.number().nullable() }),
  risk_level: "high",
  access: "mutating",
  families: "all",
  min_role: "operator",
  toolsets: ["network"],
  host_derived: false,
  needs: ["files", "mutate"],
  async preview(raw, ctx): Promise<Preview> {
    const p = checkSshdOption(raw.option, raw.value);
    const current = await readState(p.option, ctx);
    const candidate = await sshdAsProbe(ctx, ["-T", "-o", `${p.option}=${p.value}`]);
    const now = candidate === null ? null : effectiveValue((await sshdAsProbe(ctx, ["-T"])) ?? "", p.option);
    const after = candidate === null ? null : effectiveValue(candidate, p.option);
    const intended: State = { dropin: sshdDropInContent(p.option, p.value) };
    const file = sshdDropInPath(p.option);
    const same = current.dropin === intended.dropin;
    const summary = same ? `Nothing to do: ${file} already sets ${p.option} ${p.value}` : `Set sshd ${p.option} ${p.value} (now ${candidate === null ? "unknown" : (now ?? "unset")}); ${current.dropin === null ? "create" : "replace"} ${file} and reload sshd`;
    const lines = candidate === null
      ? [summary, "sshd -T needs root on this host: the configuration is checked at apply, before sshd is reloaded"]
      : [summary, `effective now (sshd -T): ${p.option.toLowerCase()} ${now ?? "(none)"}`, `after: ${p.option.toLowerCase()} ${after ?? "(none)"}`, "checked with sshd -t before and after writing; undone if sshd disagrees"];
    return { summary, text: `${(same ? [summary] : lines).join("\n")}\n`, current, intended: { ...intended, effective: after } };
  },
  async apply(raw, ctx, approved) {
    const p = { ...raw, ...checkSshdOption(raw.option, raw.value) };
    const seen = stateSchema.parse(approved.current);
    const want = z.object({ dropin: z.string() }).parse(approved.intended);
    let pid: number | null = null;
    if (seen.dropin !== want.dropin) {
      const candidate = await sshd(ctx, ["-T", "-o", `${p.option}=${p.value}`], "mutator");
      pid = await install(p, want.dropin, seen.dropin, effectiveValue(candidate, p.option), true, ctx);
    }
    return { option: p.option, value: p.value, dropin: sshdDropInPath(p.option), reloaded_pid: pid };
  },
  revert: {
    capture: (raw, ctx) => readState(checkSshdOption(raw.option, raw.value).option, ctx),
    async restore(raw, ctx, prior) {
      const p = { ...raw, ...checkSshdOption(raw.option, raw.value) };
      const was = stateSchema.parse(prior);
      const now = await readState(p.option, ctx);
      if (now.dropin !== was.dropin) await install(p, was.dropin, now.dropin, null, false, ctx);
    },
  },
});
