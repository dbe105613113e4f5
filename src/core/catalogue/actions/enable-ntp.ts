import { z } from "zod";
import { defineMutatingAction, type ActionContext, type Preview } from "../action.ts";
import { HostgateError } from "../../errors.ts";
import { capabilitiesOf } from "../needs.ts";
import { timedatectl, timedatedPresent } from "./timedated.ts";

/** NTP services hostgate knows, in the order it prefers them when several are installed. */
export const NTP_UNITS = ["chrony.service", "chronyd.service", "ntpsec.service", "ntp.service", "ntpd.service", "systemd-timesyncd.service"] as const;

const params = z.object({}).strict();

/** NTP as it is: `timedated` — its NTP property (yes/no); `unit` — the NTP service's unit-file and active states. */
const stateSchema = z.discriminatedUnion("mode", [
  z.object({ mode: z.literal("timedated"), ntp: z.boolean() }),
  z.object({ mode: z.literal("unit"), unit: z.string(), enabled: z.boolean(), active: z.boolean() }),
]);
type State = z.infer<typeof stateSchema>;

/** The first installed NTP service's state through the service manager; `invalid_params` when none is installed. */
async function unitState(ctx: ActionContext): Promise<State> {
  if (!capabilitiesOf(ctx).includes("systemd")) throw new HostgateError("unavailable", "This host offers no service manager, so EnableNtp cannot enable an NTP service here.", { hint: "Enable your NTP daemon with an approved RunCommand." });
  for (const unit of NTP_UNITS) {
    try {
      const u = await ctx.units.system.getUnit(unit);
      if (u.load_state === "not-found") continue;
      return { mode: "unit", unit, enabled: u.unit_file_state === "enabled", active: u.active_state === "active" };
    } catch (err) {
      if (err instanceof HostgateError && err.code === "no_such_unit") continue;
      throw err;
    }
  }
  throw new HostgateError("invalid_params", `No NTP service is installed on this host (looked for ${NTP_UNITS.join(", ")}).`, { hint: "Install one first: InstallPackage chrony (or systemd-timesyncd)." });
}

async function readState(ctx: ActionContext): Promise<State> {
  const bin = await timedatedPresent(ctx);
  if (bin === null) return unitState(ctx);
  const out = await timedatectl(ctx, bin, ["show", "-p", "NTP", "-p", "CanNTP"], "probe");
  if (/^CanNTP=no$/m.test(out)) throw new HostgateError("invalid_params", "systemd-timedated reports no NTP service it can enable (CanNTP=no).", { hint: "Install one first: InstallPackage systemd-timesyncd (or chrony)." });
  return { mode: "timedated", ntp: /^NTP=yes$/m.test(out) };
}

/**
 * EnableNtp: keep the clock synchronised. Through systemd-timedated (`timedatectl set-ntp true`, its D-Bus
 * SetNTP) where systemd runs as PID 1, else the first installed NTP service (chrony, ntpsec, ntp,
 * systemd-timesyncd) enabled and started through the service manager. Not reverted.
 */
export default defineMutatingAction({
  name: "EnableNtp",
  title: "Enable NTP time sync",
  description: "Turn on NTP time sync: timedated (timedatectl set-ntp true, spawned) where systemd runs, else enable and start the installed chrony/ntp/timesyncd service.",
  params,
  output: z.object({ mode: z.enum(["timedated", "unit"]), unit: z.string().nullable(), changed: z.boolean() }),
  risk_level: "low",
  access: "mutating",
  families: "all",
  min_role: "operator",
  toolsets: ["time"],
  host_derived: false,
  needs: ["files", "mutate"],
  async preview(_p, ctx): Promise<Preview> {
    const current = await readState(ctx);
    const intended: State = current.mode === "timedated" ? { mode: "timedated", ntp: true } : { ...current, enabled: true, active: true };
    const done = JSON.stringify(current) === JSON.stringify(intended);
    const what = current.mode === "timedated" ? "systemd-timedated's NTP" : current.unit;
    const summary = done ? `Nothing to do: NTP is already on (${what})` : current.mode === "timedated" ? "Turn NTP on through systemd-timedated (timedatectl set-ntp true)" : `Enable and start ${current.unit} (now ${current.enabled ? "enabled" : "disabled"}, ${current.active ? "active" : "inactive"})`;
    const simulated = current.mode === "unit" && ctx.units.system.simulated === true ? "SIMULATED: the configured systemd backend is the mock; nothing real changes.\n" : "";
    return { summary, text: `${summary}\n${simulated}`, current, intended };
  },
  async apply(_p, ctx, approved) {
    const seen = stateSchema.parse(approved.current);
    if (seen.mode === "timedated") {
      const bin = await timedatedPresent(ctx);
      if (bin === null) throw new HostgateError("precondition_failed", "systemd-timedated is no longer reachable on this host.", { hint: "Plan again." });
      if (!seen.ntp) await timedatectl(ctx, bin, ["set-ntp", "true"], "mutator");
      return { mode: seen.mode, unit: null, changed: !seen.ntp };
    }
    const m = ctx.units.system;
    if (!seen.enabled) await m.enableUnitFiles([seen.unit]);
    if (!seen.active) {
      const job = await m.startUnit(seen.unit);
      if (job.result !== "done") throw new HostgateError("action_failed", `Starting ${seen.unit} ended ${job.result}.`, { hint: `Read its log: read_journal { unit: "${seen.unit}" }.` });
    }
    return { mode: seen.mode, unit: seen.unit, changed: !seen.enabled || !seen.active };
  },
});
