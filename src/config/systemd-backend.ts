/**
 * Strict zod schema of the `backend` config section (unknown keys are errors; type values are the exact,
 * case-sensitive strings `dbus` and `mock`). The lead's root config schema embeds it as `backend`; the
 * parsed value is what daemon/select-backend.ts takes.
 */
import { z } from "zod";

const busAddress = z.string().min(1).max(1024).refine((s) => s.includes(":") && s.includes("="), "a D-Bus address such as unix:path=/run/dbus/system_bus_socket");

/** `backend:` — every key optional; absent `type` means auto (dbus when PID 1 is systemd, else none: unavailable). */
export const systemdBackendConfigSchema = z.strictObject({
  type: z.enum(["dbus", "mock"]).optional(),
  bus_address: busAddress.optional(),
  file_root: z.string().startsWith("/").max(1024).optional(),
  user_managers: z.array(z.strictObject({
    user: z.string().min(1).max(32),
    bus_address: busAddress,
    file_root: z.string().startsWith("/").max(1024).optional(),
  })).max(64).optional(),
});

export type SystemdBackendConfigInput = z.infer<typeof systemdBackendConfigSchema>;
