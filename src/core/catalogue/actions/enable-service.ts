import { serviceJobAction } from "./service-job.ts";

/** EnableService: create the [Install] symlinks and reload the manager (risk medium: changes boot behaviour). */
export const EnableService = serviceJobAction({
  name: "EnableService", verb: "enable", title: "Enable a service at boot", risk_level: "medium",
  description: "Enables a service's unit file (creates its [Install] symlinks, then reloads the manager). Does not start it.",
  intended: (s) => s.unit_file_state === "enabled"
    ? { text: "already enabled; no change expected", intended: { unit_file_state: "enabled" } }
    : { text: "enabled (unit_file_state enabled; runtime state unchanged)", intended: { unit_file_state: "enabled" } },
  run: (m, u) => m.enableUnitFiles([u]),
});
