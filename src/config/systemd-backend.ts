/**
 * Strict zod schema of the `backend` config section (unknown keys are errors; type values are the exact,
 * case-sensitive strings `dbus` and `mock`). The lead's root config schema embeds it as `backend`; the
 * parsed value is what daemon/select-backend.ts takes.
 */
import { z } from "zod";

const busAddress = z.string().min(1).max(1024).refine((s) => s.includes(":") && s.includes("="), "a D-Bus address such as unix:path=/run/dbus/system_bus_socket");

/** `backend:` — every key optional; absent `type` means auto (dbus when PID 1 is systemd, else none: unavailable). */
export const systemdBackendConfigSchema = z.strictObject({
  type: z.enum(["dbus", "mock"]).optional().describe("dbus: the host's systemd over D-Bus; mock: an in-memory simulation whose answers and changes say SIMULATED. Absent: dbus when PID 1 is systemd, else the systemd tools answer unavailable"),
  bus_address: busAddress.optional().describe("D-Bus address of the system manager (default the system bus, unix:path=/run/dbus/system_bus_socket)"),
  file_root: z.string().startsWith("/").max(1024).optional().describe("Directory under which unit files and drop-ins (FragmentPath, DropInPaths) are read, e.g. a container root; default /"),
  user_managers: z.array(z.strictObject({
    user: z.string().min(1).max(32).describe("Login name or uid whose manager this is"),
    bus_address: busAddress.describe("D-Bus address of that user's manager, e.g. unix:path=/run/user/1000/bus"),
    file_root: z.string().startsWith("/").max(1024).optional().describe("Directory that this manager's unit file paths are read under"),
  })).max(64).optional().describe("User managers (systemd --user) to represent as systemd://user/{user}/… resources (at most 64): each item has user, bus_address and optional file_root"),
});

export type SystemdBackendConfigInput = z.infer<typeof systemdBackendConfigSchema>;
