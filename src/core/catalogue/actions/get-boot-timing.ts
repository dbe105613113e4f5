import { z } from "zod";
import { defineReadOnlyAction } from "../action.ts";
import { HostgateError } from "../../errors.ts";
import { managerFor, userParam } from "./systemd-schemas.ts";

const ms = z.number().nullable();
const n = (v: unknown): number => (typeof v === "number" ? v : 0);

/**
 * A unit's activation time as `systemd-analyze blame` computes it: from leaving inactive
 * (InactiveExitTimestampMonotonic) to becoming active (ActiveEnterTimestampMonotonic), or to inactive again
 * (InactiveEnterTimestampMonotonic) when it never became active (a oneshot); null when it never started. µs in, µs out.
 */
export function activationUsec(p: Record<string, unknown>): number | null {
  const activating = n(p.InactiveExitTimestampMonotonic);
  if (activating === 0) return null;
  const activated = n(p.ActiveEnterTimestampMonotonic);
  const deactivated = n(p.InactiveEnterTimestampMonotonic);
  if (activated >= activating) return activated - activating;
  if (deactivated >= activating) return deactivated - activating;
  return 0;
}

/** Durations between the manager's boot timestamps (µs), as `systemd-analyze time` splits them; ms, null when a phase is absent. */
export function bootPhases(m: Record<string, unknown>): { firmware_ms: number | null; loader_ms: number | null; kernel_ms: number | null; initrd_ms: number | null; userspace_ms: number | null; total_ms: number | null; finished: boolean } {
  const fw = n(m.FirmwareTimestampMonotonic);
  const loader = n(m.LoaderTimestampMonotonic);
  const initrd = n(m.InitRDTimestampMonotonic);
  const userspace = n(m.UserspaceTimestampMonotonic);
  const finish = n(m.FinishTimestampMonotonic);
  const toMs = (us: number): number => Math.round(us / 1000);
  return {
    firmware_ms: fw > 0 ? toMs(fw - loader) : null,
    loader_ms: loader > 0 ? toMs(loader) : null,
    // the kernel phase ends where the initrd (or, without one, userspace) begins; 0 inside a container
    kernel_ms: userspace > 0 || initrd > 0 ? toMs(initrd > 0 ? initrd : userspace) : null,
    initrd_ms: initrd > 0 ? toMs(userspace - initrd) : null,
    userspace_ms: finish > 0 ? toMs(finish - userspace) : null,
    total_ms: finish > 0 ? toMs(fw + finish) : null,
    finished: finish > 0,
  };
}

/** GetBootTiming: boot phases and the slowest units to start, from systemd's D-Bus timestamps (what `systemd-analyze time|blame` reads). */
export default defineReadOnlyAction({
  name: "GetBootTiming",
  title: "Boot timing",
  description: "Boot phases (firmware, loader, kernel, initrd, userspace) and the units that took longest to start.",
  params: z.object({ limit: z.number().int().min(1).max(500).default(20).describe("slowest units"), user: userParam }).strict(),
  output: z.object({
    firmware_ms: ms, loader_ms: ms, kernel_ms: ms, initrd_ms: ms, userspace_ms: ms, total_ms: ms, finished: z.boolean(),
    units: z.array(z.object({ unit: z.string(), activation_ms: z.number() })),
  }),
  risk_level: "low",
  access: "read_only",
  families: "all",
  min_role: "observer",
  toolsets: ["kernel"],
  host_derived: true,
  needs: ["systemd"],
  async run(params, ctx) {
    const manager = managerFor(ctx.units, params.user);
    if (!manager.properties) throw new HostgateError("unavailable", "This host's systemd backend has no D-Bus properties (boot timing needs them).", { hint: "read_journal { boot: 0 } shows the boot's messages instead." });
    const phases = bootPhases(await manager.properties({ unit: null, iface: "Manager" }));
    const rows = (await manager.listUnits()).filter((r) => r.load_state === "loaded");
    const timed = await Promise.all(rows.map(async (r) => ({ unit: r.unit, us: activationUsec(await manager.properties!({ unit: r.unit, iface: "Unit" }).catch(() => ({}))) })));
    const units = timed.filter((t): t is { unit: string; us: number } => t.us !== null && t.us > 0)
      .sort((a, b) => b.us - a.us || a.unit.localeCompare(b.unit))
      .slice(0, params.limit)
      .map((t) => ({ unit: t.unit, activation_ms: Math.round(t.us / 100) / 10 }));
    return { ...phases, units };
  },
});
