import { serviceJobAction } from "./service-job.ts";

/** RestartService: stop then start (risk medium: brief outage; a bad config leaves it failed). */
export const RestartService = serviceJobAction({
  name: "RestartService", verb: "restart", title: "Restart a service", risk_level: "medium",
  description: "Restarts a systemd service (stop then start, job mode replace; starts it if it was stopped) and waits for the job to finish.",
  intended: (s) => ({
    text: s.active_state === "active" ? "restarted (new main PID, active_state active)" : "started (active_state active)",
    intended: { active_state: "active", main_pid_changes: true },
  }),
  run: (m, u) => m.restartUnit(u),
});
