import { describe, expect, it } from "vitest";
import { HostgateError } from "../core/errors.ts";
import { selectBackend } from "./select-backend.ts";

const host = (comm: string | null) => ({
  readText: (path: string) => {
    expect(path).toBe("/proc/1/comm");
    return comm === null ? Promise.reject(new HostgateError("not_found", "no")) : Promise.resolve(`${comm}\n`);
  },
});

describe("selectBackend", () => {
  it("auto: dbus when PID 1 is systemd, without connecting", async () => {
    const s = await selectBackend(undefined, host("systemd"));
    expect(s).toMatchObject({ type: "dbus", reason: "auto: PID 1 is systemd", warning: null });
    expect(s.startup_line).toBe("backend=dbus (system manager at unix:path=/run/dbus/system_bus_socket)");
    await s.units.close();
  });

  it("auto: no simulated units when PID 1 is not systemd; every systemd call answers unavailable with the reason", async () => {
    const s = await selectBackend({}, host("process_api"));
    expect(s.type).toBe("none");
    expect(s.reason).toContain("process_api");
    expect(s.warning).toMatch(/process_api.*unavailable.*backend\.type: mock/);
    const err = await s.units.system.listUnits().catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "unavailable" });
    expect((err as Error).message).toContain("process_api");
    await expect(s.units.system.restartUnit("nginx.service")).rejects.toMatchObject({ code: "unavailable" });
    expect(() => s.units.user("alice")).toThrow(expect.objectContaining({ code: "unavailable" }) as Error);
  });

  it("auto: unavailable, not mock, when /proc/1/comm is unreadable", async () => {
    const s = await selectBackend(undefined, host(null));
    expect(s.type).toBe("none");
    expect(s.warning).toContain("unreadable");
  });

  it("the configured mock says SIMULATED in every description and unit file", async () => {
    const never = { readText: () => Promise.reject(new Error("must not be called")) };
    const m = await selectBackend({ type: "mock" }, never);
    expect(m.warning).toMatch(/SIMULATED/);
    for (const u of await m.units.system.listUnits()) expect(u.description).toMatch(/^\[SIMULATED\] /);
    expect((await m.units.system.getUnit("nginx.service")).description).toMatch(/^\[SIMULATED\]/);
    expect((await m.units.system.getDefinition("nginx.service")).text).toMatch(/^# SIMULATED/);
    expect((await m.units.user("alice").listUnits())[0]!.description).toMatch(/^\[SIMULATED\]/);
    expect(m.units.system.simulated).toBe(true);
  });

  it("honours an explicit type and never reads /proc/1/comm for it", async () => {
    const never = { readText: () => Promise.reject(new Error("must not be called")) };
    const s = await selectBackend({ type: "dbus", bus_address: "unix:path=/x/bus", user_managers: [{ user: "alice", bus_address: "unix:path=/run/user/1000/bus" }] }, never);
    expect(s.startup_line).toBe("backend=dbus (system manager at unix:path=/x/bus; user managers: alice)");
    expect(s.units.users).toEqual(["alice"]);
    expect(() => s.units.user("bob")).toThrow(expect.objectContaining({ code: "user_manager_unavailable" }) as Error);
    await expect(s.units.system.listUnits()).rejects.toMatchObject({ code: "backend_error" });
    const m = await selectBackend({ type: "mock" }, never);
    expect(m).toMatchObject({ type: "mock", reason: "configured" });
  });
});
