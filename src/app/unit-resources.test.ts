import { describe, expect, it } from "vitest";
import { MockUnitManager, createMockUnitManagers } from "../adapters/systemd-mock.ts";
import { createUnitManagerSet } from "../adapters/unit-manager-set.ts";
import { DbusUnitManager } from "../adapters/systemd-dbus.ts";
import { listUnitResources, readUnitResource, unitResourceTemplates } from "./unit-resources.ts";

describe("unit resources", () => {
  it("has the five templates: local system and user units, and a host's system units", () => {
    expect(unitResourceTemplates.map((t) => t.uriTemplate)).toEqual([
      "systemd://system/unit/{type}/{name}", "systemd://system/unit/{type}/{name}/definition",
      "systemd://host/{host}/system/unit/{type}/{name}",
      "systemd://user/{user}/unit/{type}/{name}", "systemd://user/{user}/unit/{type}/{name}/definition",
    ]);
  });

  it("lists supported types across system and user managers, --all semantics", async () => {
    const r = await listUnitResources(createMockUnitManagers());
    const uris = r.map((x) => x.uri);
    expect(uris).toContain("systemd://system/unit/service/nginx");
    expect(uris).toContain("systemd://system/unit/mount/-");
    expect(uris).toContain("systemd://system/unit/service/backup"); // inactive units are listed
    expect(uris).toContain("systemd://system/unit/service/nfs-server"); // not-found but referenced, like list-units --all
    expect(uris).toContain("systemd://user/alice/unit/service/syncthing");
    expect(uris.some((u) => u.includes("/device/"))).toBe(false);
    expect(r.find((x) => x.uri.endsWith("/nginx"))).toMatchObject({ name: "nginx.service", mimeType: "application/json", description: "active (running), loaded" });
    expect(r.find((x) => x.uri.endsWith("/syncthing"))?.name).toBe("alice/syncthing.service");
  });

  it("filters by type", async () => {
    const r = await listUnitResources(createMockUnitManagers(), { types: ["timer"] });
    expect(r.length).toBeGreaterThan(0);
    expect(r.every((x) => x.uri.includes("/unit/timer/"))).toBe(true);
  });

  it("skips an unreachable user manager and reports it", async () => {
    const broken = new DbusUnitManager({ busAddress: "unix:path=/nonexistent/hg/bus", ref: { scope: "user", user: "bob" } });
    const set = createUnitManagerSet(new MockUnitManager(), new Map([["bob", broken]]));
    const errors: string[] = [];
    const r = await listUnitResources(set, { onManagerError: (ref, e) => errors.push(`${ref.scope}:${e.code}`) });
    expect(r.length).toBeGreaterThan(10);
    expect(errors).toEqual(["user:backend_error"]);
  });

  it("reads state as compact JSON and definitions as text", async () => {
    const units = createMockUnitManagers();
    const s = await readUnitResource("systemd://system/unit/service/nginx", units);
    expect(s.mimeType).toBe("application/json");
    expect(s.text).not.toContain("\n");
    expect(JSON.parse(s.text)).toEqual({
      description: "A high performance web server and a reverse proxy server", load_state: "loaded", active_state: "active", sub_state: "running",
      unit_file_state: "enabled", main_pid: 1034, since: "2025-11-30T00:00:07.000Z",
    });
    const d = await readUnitResource("systemd://system/unit/service/nginx/definition", units);
    expect(d.mimeType).toBe("text/plain");
    expect(d.text).toContain("# /etc/systemd/system/nginx.service.d/override.conf");
    expect(d.text).not.toContain("abc123");
  });

  it("maps errors to stable codes", async () => {
    const units = createMockUnitManagers();
    await expect(readUnitResource("systemd://system/unit/service/nope", units)).rejects.toMatchObject({ code: "no_such_unit" });
    await expect(readUnitResource("systemd://user/bob/unit/service/x", units)).rejects.toMatchObject({ code: "user_manager_unavailable" });
    await expect(readUnitResource("systemd://system/unit/slice/x", units)).rejects.toMatchObject({ code: "invalid_uri" });
  });
});
