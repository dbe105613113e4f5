import { serviceJobAction } from "./service-job.ts";

/** StartService: start a service (risk medium: starts code that was not running). Plan/execute only. */
export const StartService = serviceJobAction({
  name: "StartService", verb: "start", title: "Start a service", risk_level: "medium",
  description: "Starts a systemd service (job mode replace) and waits for the job to finish.",
  intended: (s) => s.active_state === "active"
    ? { text: "already active; no change expected", intended: { active_state: "active" } }
    : { text: "started (active_state active)", intended: { active_state: "active" } },
  run: (m, u) => m.startUnit(u),
});
