import { serviceJobAction } from "./service-job.ts";

/** ReloadService: ask a running service to reload its configuration (risk low: no restart; fails if unsupported). */
export const ReloadService = serviceJobAction({
  name: "ReloadService", verb: "reload", title: "Reload a service", risk_level: "low",
  description: "Runs the service's ExecReload= (job mode replace) without restarting it. Fails with backend_error when the unit cannot reload.",
  intended: (s) => ({
    text: s.active_state === "active" ? "configuration reloaded (same main PID, stays active)" : "reload attempted on an inactive service (the job fails)",
    intended: { active_state: s.active_state, main_pid_changes: false },
  }),
  run: (m, u) => m.reloadUnit(u),
});
