// One contract suite for every UnitManager adapter (mock, D-Bus user manager, D-Bus nspawn system manager).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listUnitResources, readUnitResource } from "../../src/app/unit-resources.ts";
import { ReadUnit } from "../../src/core/catalogue/actions/read-unit.ts";
import { ReadUnitDefinition } from "../../src/core/catalogue/actions/read-unit-definition.ts";
import { RestartService } from "../../src/core/catalogue/actions/restart-service.ts";
import { ListUnits } from "../../src/core/catalogue/actions/list-units.ts";
import type { ActionContext } from "../../src/core/catalogue/action.ts";
import { formatUnitUri } from "../../src/core/systemd/uri.ts";
import type { ManagerRef } from "../../src/core/systemd/uri.ts";
import type { UnitManager, UnitManagerSet } from "../../src/ports/unit-manager.ts";

/** Units the adapter under test is known to have, by role. */
export interface KnownUnits {
  running: string;
  reloadable: string;
  withDropIn: string;
  installable: string;
  timer: string;
  escaped: string;
  /** A secret value present in withDropIn's drop-in that must never be returned. */
  secret: string;
  /** A value in a 0600 drop-in of withDropIn that no redaction pattern knows (real-file peers only). */
  privateValue?: string;
  rootMount?: string;
}

/** What a setup function provides. */
export interface ContractFixture {
  units: UnitManagerSet;
  ref: ManagerRef;
  known: KnownUnits;
  stop(): Promise<void>;
}

const STATE_KEYS = ["active_state", "description", "load_state", "main_pid", "since", "sub_state", "unit_file_state"];

/** Registers the contract tests for one adapter. `setup` runs once in beforeAll. */
export function describeUnitManagerContract(name: string, setup: () => Promise<ContractFixture>): void {
  describe(`UnitManager contract: ${name}`, () => {
    let f: ContractFixture;
    let m: UnitManager;
    let ctx: ActionContext;

    beforeAll(async () => {
      f = await setup();
      m = f.units.get(f.ref);
      ctx = { units: f.units } as unknown as ActionContext;
    });
    afterAll(async () => {
      await f?.units.close();
      await f?.stop();
    });

    it("lists units with list-units --all semantics, sorted", async () => {
      const rows = await m.listUnits();
      const names = rows.map((r) => r.unit);
      expect(names).toEqual([...names].sort());
      expect(rows.find((r) => r.unit === f.known.running)).toMatchObject({ load_state: "loaded", active_state: "active", sub_state: "running" });
      expect(names).toContain(f.known.timer);
      expect(rows.some((r) => r.active_state === "inactive")).toBe(true);
    });

    it("filters by type, state and pattern", async () => {
      const timers = await m.listUnits({ types: ["timer"] });
      expect(timers.length).toBeGreaterThan(0);
      expect(timers.every((r) => r.unit.endsWith(".timer"))).toBe(true);
      const running = await m.listUnits({ states: ["running"] });
      expect(running.map((r) => r.unit)).toContain(f.known.running);
      expect(running.every((r) => [r.load_state, r.active_state, r.sub_state].includes("running"))).toBe(true);
      const pattern = `${f.known.running.slice(0, 3)}*`;
      const matched = await m.listUnits({ patterns: [pattern], types: ["service"] });
      expect(matched.map((r) => r.unit)).toContain(f.known.running);
      expect(matched.every((r) => r.unit.startsWith(f.known.running.slice(0, 3)) && r.unit.endsWith(".service"))).toBe(true);
    });

    it("reads compact state", async () => {
      const s = await m.getUnit(f.known.running);
      expect(Object.keys(s).sort()).toEqual(STATE_KEYS);
      expect(s).toMatchObject({ load_state: "loaded", active_state: "active", sub_state: "running" });
      expect(s.main_pid).toBeGreaterThan(0);
      expect(Number.isNaN(Date.parse(s.since ?? "x"))).toBe(false);
      expect(JSON.stringify(s).length).toBeLessThan(400);
    });

    it("reads units with escaped names and the root mount", async () => {
      expect((await m.getUnit(f.known.escaped)).load_state).toBe("loaded");
      if (f.known.rootMount !== undefined) expect(await m.getUnit(f.known.rootMount)).toMatchObject({ active_state: "active", sub_state: "mounted", main_pid: null });
    });

    it("reports no_such_unit for unknown units", async () => {
      await expect(m.getUnit("hg-does-not-exist.service")).rejects.toMatchObject({ code: "no_such_unit" });
      await expect(m.getDefinition("hg-does-not-exist.service")).rejects.toMatchObject({ code: "no_such_unit" });
    });

    it("rejects invalid names with invalid_unit_name", async () => {
      await expect(m.getUnit("bad name.service")).rejects.toMatchObject({ code: "invalid_unit_name" });
      await expect(m.restartUnit("x@*.service")).rejects.toMatchObject({ code: "invalid_unit_name" });
    });

    it("returns the definition with drop-ins, secrets redacted", async () => {
      const d = await m.getDefinition(f.known.withDropIn);
      expect(d.fragment_path).not.toBeNull();
      expect(d.drop_in_paths.length).toBeGreaterThan(0);
      expect(d.text).toContain(`# ${d.fragment_path!}\n[Unit]`);
      for (const p of d.drop_in_paths) expect(d.text).toContain(`# ${p}\n`);
      expect(d.text).not.toContain(f.known.secret);
      expect(d.text).toContain("[redacted:unit_secret]");
    });

    it("route: a 0600 drop-in holding a value no pattern knows — not shown, its mode named (red team, issue 12)", async () => {
      const d = await m.getDefinition(f.known.withDropIn);
      const priv = d.drop_in_paths.find((p) => p.endsWith("/private.conf"));
      if (priv === undefined || f.known.privateValue === undefined) return; // the mock manager has no files on disk
      expect(d.text).not.toContain(f.known.privateValue);
      expect(d.text).toContain(`# ${priv}\n(not shown: mode 0600`);
    });

    it("returns service status with ExecStart decoded", async () => {
      const s = await m.getServiceStatus(f.known.running);
      expect(s.exec_start.length).toBeGreaterThan(0);
      expect(s.exec_start[0]!.argv.length).toBeGreaterThan(0);
      expect(s.result).toBe("success");
      expect(s.main_pid).toBeGreaterThan(0);
    });

    it("sees the state change of a restart job in the next read", async () => {
      const before = await m.getUnit(f.known.running);
      const outcome = await m.restartUnit(f.known.running);
      expect(outcome).toMatchObject({ unit: f.known.running, operation: "restart", result: "done" });
      const after = await m.getUnit(f.known.running);
      expect(after.active_state).toBe("active");
      expect(after.main_pid).not.toBe(before.main_pid);
      expect(Date.parse(after.since!)).toBeGreaterThanOrEqual(Date.parse(before.since!));
    });

    it("stops and starts", async () => {
      expect((await m.stopUnit(f.known.running)).result).toBe("done");
      expect(await m.getUnit(f.known.running)).toMatchObject({ active_state: "inactive", sub_state: "dead", main_pid: null });
      expect((await m.startUnit(f.known.running)).result).toBe("done");
      expect((await m.getUnit(f.known.running)).active_state).toBe("active");
    });

    it("reloads without a new main PID", async () => {
      const before = await m.getUnit(f.known.reloadable);
      expect((await m.reloadUnit(f.known.reloadable)).result).toBe("done");
      expect((await m.getUnit(f.known.reloadable)).main_pid).toBe(before.main_pid);
    });

    it("enables and disables unit files", async () => {
      const initial = (await m.getUnit(f.known.installable)).unit_file_state;
      const [first, second] = initial === "enabled" ? (["disable", "enable"] as const) : (["enable", "disable"] as const);
      const run = (op: "enable" | "disable") => (op === "enable" ? m.enableUnitFiles([f.known.installable]) : m.disableUnitFiles([f.known.installable]));
      expect((await run(first)).result).toBe("changed");
      expect((await m.getUnit(f.known.installable)).unit_file_state).toBe(`${first}d`);
      expect((await run(second)).changes!.length).toBeGreaterThan(0);
      expect((await m.getUnit(f.known.installable)).unit_file_state).toBe(`${second}d`);
    });

    it("serves resources and the fallback tools from the same data", async () => {
      const uri = formatUnitUri(f.ref, f.known.running);
      const resources = await listUnitResources(f.units);
      expect(resources.map((r) => r.uri)).toContain(uri);
      const read = await readUnitResource(uri, f.units);
      expect(read.mimeType).toBe("application/json");
      expect(JSON.parse(read.text)).toMatchObject({ active_state: "active", sub_state: "running" });
      const def = await readUnitResource(`${uri}/definition`, f.units);
      expect(def.mimeType).toBe("text/plain");
      expect(def.text).toContain("[Service]");
      expect(await ReadUnit.run({ uri }, ctx)).toEqual(JSON.parse((await readUnitResource(uri, f.units)).text));
      expect((await ReadUnitDefinition.run({ uri }, ctx)).text).toBe(def.text);
      const escapedUri = formatUnitUri(f.ref, f.known.escaped);
      expect((JSON.parse((await readUnitResource(escapedUri, f.units)).text) as { load_state: string }).load_state).toBe("loaded");
      const listed = await ListUnits.run({ limit: 1000, ...(f.ref.scope === "user" ? { user: f.ref.user } : {}) }, ctx);
      expect(listed.units.find((u) => u.unit === f.known.escaped)?.uri).toBe(escapedUri);
    });

    it("previews a restart with the current state and the intended change", async () => {
      const p = await RestartService.preview({ unit: f.known.running, ...(f.ref.scope === "user" ? { user: f.ref.user } : {}) }, ctx);
      expect(p.summary).toBe(`restart ${f.known.running}`);
      expect(p.text).toMatch(/: active \(running\) since .*, main PID \d+, unit file .* → restarted/);
      expect((await m.getUnit(f.known.running)).active_state).toBe("active");
    });
  });
}
