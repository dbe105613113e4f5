import { serviceJobAction } from "./service-job.ts";

/** StopService: stop a service (risk high: takes a service away; stopping ssh or networking can lock you out). */
export const StopService = serviceJobAction({
  name: "StopService", verb: "stop", title: "Stop a service", risk_level: "high",
  description: "Stops a systemd service (job mode replace) and waits for the job to finish. Its clients lose it until it is started again.",
  intended: (s) => s.active_state === "inactive"
    ? { text: "already inactive; no change expected", intended: { active_state: "inactive" } }
    : { text: "stopped (active_state inactive)", intended: { active_state: "inactive" } },
  run: (m, u) => m.stopUnit(u),
});
