import { describe, expect, it } from "vitest";
import { systemdBackendConfigSchema } from "./systemd-backend.ts";
import type { SystemdBackendConfig } from "../daemon/select-backend.ts";

describe("backend config schema", () => {
  it("accepts the documented shapes", () => {
    expect(systemdBackendConfigSchema.parse({})).toEqual({});
    const full: SystemdBackendConfig = systemdBackendConfigSchema.parse({
      type: "dbus", bus_address: "unix:path=/run/dbus/system_bus_socket", file_root: "/",
      user_managers: [{ user: "alice", bus_address: "unix:path=/run/user/1000/bus" }],
    });
    expect(full.user_managers).toHaveLength(1);
  });

  it.each([
    [{ type: "DBus" }], [{ type: "systemd" }], [{ kind: "dbus" }], [{ bus_address: "/run/bus" }], [{ user_managers: [{ user: "a", bus_address: "unix:path=/x", extra: 1 }] }],
    [{ file_root: "relative" }],
  ])("rejects %j", (v) => {
    expect(systemdBackendConfigSchema.safeParse(v).success).toBe(false);
  });
});
