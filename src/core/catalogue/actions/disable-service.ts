import { serviceJobAction } from "./service-job.ts";

/** DisableService: remove the [Install] symlinks and reload the manager (risk medium: it will not start at boot). */
export const DisableService = serviceJobAction({
  name: "DisableService", verb: "disable", title: "Disable a service at boot", risk_level: "medium",
  description: "Disables a service's unit file (removes its [Install] symlinks, then reloads the manager). Does not stop it.",
  intended: (s) => s.unit_file_state === "disabled"
    ? { text: "already disabled; no change expected", intended: { unit_file_state: "disabled" } }
    : { text: "disabled (unit_file_state disabled; runtime state unchanged)", intended: { unit_file_state: "disabled" } },
  run: (m, u) => m.disableUnitFiles([u]),
});
