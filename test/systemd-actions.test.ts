import { describe, expect, it } from "vitest";
import { createMockUnitManagers } from "../src/adapters/systemd-mock.ts";
import { toolNameOf } from "../src/core/catalogue/action.ts";
import type { ActionContext } from "../src/core/catalogue/action.ts";
import { DisableService, EnableService, GetServiceStatus, ListFailedUnits, ListUnitTypes, ListUnits, ReadUnit, ReadUnitDefinition, ReloadService, RestartService, StartService, StopService, systemdActions } from "../src/core/catalogue/actions/systemd.ts";

const ctx = (): ActionContext => ({ units: createMockUnitManagers() }) as unknown as ActionContext;

describe("systemd catalogue", () => {
  it("declares names, access and toolsets", () => {
    expect(systemdActions.map((a) => toolNameOf(a.name))).toEqual([
      "list_units", "read_unit", "read_unit_definition", "list_unit_types", "get_service_status", "list_failed_units",
      "start_service", "stop_service", "restart_service", "reload_service", "enable_service", "disable_service",
      "mask_unit", "unmask_unit", "daemon_reload", "set_unit_resource_limits",
    ]);
    for (const a of systemdActions.slice(0, 6)) expect(a.access).toBe("read_only");
    for (const a of systemdActions.slice(6)) {
      expect(a.access).toBe("mutating");
      expect(a.min_role).toBe("operator");
      expect(a.toolsets).not.toContain("resource_api_fallback");
    }
    expect(systemdActions.filter((a) => a.toolsets.includes("resource_api_fallback")).map((a) => a.name)).toEqual(["ListUnits", "ReadUnit", "ReadUnitDefinition"]);
    expect(StopService.risk_level).toBe("high");
    expect(ReloadService.risk_level).toBe("low");
  });

  it("list_units paginates with a cursor and filters", async () => {
    const c = ctx();
    const all = await ListUnits.run(ListUnits.params.parse({}), c);
    expect(all.next_cursor).toBeNull();
    const p1 = await ListUnits.run(ListUnits.params.parse({ limit: 5 }), c);
    expect(p1.units).toHaveLength(5);
    const p2 = await ListUnits.run(ListUnits.params.parse({ limit: 500, cursor: p1.next_cursor! }), c);
    expect([...p1.units, ...p2.units]).toEqual(all.units);
    const failed = await ListUnits.run(ListUnits.params.parse({ state: "failed", type: "service" }), c);
    expect(failed.units.map((u) => u.unit)).toEqual(["myapp.service"]);
    const alice = await ListUnits.run(ListUnits.params.parse({ user: "alice" }), c);
    expect(alice.units[0]!.uri).toMatch(/^systemd:\/\/user\/alice\//);
    expect(ListUnits.params.safeParse({ type: "device" }).success).toBe(false);
  });

  it("read_unit rejects /definition URIs and read_unit_definition accepts both", async () => {
    const c = ctx();
    await expect(ReadUnit.run({ uri: "systemd://system/unit/service/nginx/definition" }, c)).rejects.toMatchObject({ code: "invalid_uri" });
    const a = await ReadUnitDefinition.run({ uri: "systemd://system/unit/service/nginx" }, c);
    const b = await ReadUnitDefinition.run({ uri: "systemd://system/unit/service/nginx/definition" }, c);
    expect(a).toEqual(b);
  });

  it("read_unit_definition's provenance counts the Environment= value it redacted (newcomer report)", async () => {
    const { queryAction } = await import("../src/app/query.ts");
    const { hostEntry } = await import("../src/app/hosts.ts");
    const r = await queryAction("ReadUnitDefinition", { uri: "systemd://system/unit/service/nginx" }, hostEntry({ ...ctx(), family: "debian" }, "local"));
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.data.text).toContain("NGINX_API_TOKEN=[redacted:unit_secret]");
    expect(r.value.data).not.toHaveProperty("redactions");
    expect(r.value.meta.redactions).toBe(1);
  });

  it("list_unit_types, get_service_status, list_failed_units", async () => {
    const c = ctx();
    expect((await ListUnitTypes.run({}, c)).types.map((t) => t.type)).toEqual(["service", "timer", "socket", "target", "mount", "path"]);
    const s = await GetServiceStatus.run({ unit: "myapp" }, c);
    expect(s).toMatchObject({ unit: "myapp.service", active_state: "failed", result: "exit-code", n_restarts: 5 });
    await expect(GetServiceStatus.run({ unit: "backup.timer" }, c)).rejects.toMatchObject({ code: "invalid_unit_name" });
    expect((await ListFailedUnits.run({}, c)).units).toEqual([{ uri: "systemd://system/unit/service/myapp", unit: "myapp.service", description: "My application API", load_state: "loaded", active_state: "failed", sub_state: "failed" }]);
  });

  it("previews state the current state and intended change, deterministically, without changing anything", async () => {
    const c = ctx();
    const p = await RestartService.preview({ unit: "nginx" }, c);
    expect(p.text).toBe("restart nginx.service (system manager): active (running) since 2025-11-30T00:00:07.000Z, main PID 1034, unit file enabled → restarted (new main PID, active_state active)");
    expect(await RestartService.preview({ unit: "nginx" }, c)).toEqual(p);
    expect((await StopService.preview({ unit: "backup.service" }, c)).text).toContain("already inactive");
    expect((await EnableService.preview({ unit: "cron" }, c)).text).toContain("already enabled");
    expect((await DisableService.preview({ unit: "cron" }, c)).intended).toMatchObject({ unit_file_state: "disabled" });
    expect((await StartService.preview({ unit: "syncthing", user: "alice" }, c)).text).toContain("(user manager of alice)");
    expect((await ReadUnit.run({ uri: "systemd://system/unit/service/nginx" }, c)).main_pid).toBe(1034);
    await expect(RestartService.preview({ unit: "nope" }, c)).rejects.toMatchObject({ code: "no_such_unit" });
  });

  it("apply runs the job and returns the new state", async () => {
    const c = ctx();
    const r = await StopService.apply({ unit: "nginx" }, c, { summary: "", text: "" });
    expect(r.outcome).toEqual({ unit: "nginx.service", operation: "stop", result: "done" });
    expect(r.state.active_state).toBe("inactive");
    expect((await DisableService.apply({ unit: "cron" }, c, { summary: "", text: "" })).state.unit_file_state).toBe("disabled");
    await expect(ReloadService.apply({ unit: "cron" }, c, { summary: "", text: "" })).rejects.toMatchObject({ code: "backend_error" });
  });
});
