import { describe, expect, it } from "vitest";
import { DEFAULT_EXPOSURE, frontNarrows, sameExposure, type ExposureSettings, type ToolExposure } from "./toolsets.ts";

const s = (over: Partial<ExposureSettings>): ExposureSettings => ({ ...DEFAULT_EXPOSURE, ...over });

describe("sameExposure (the front's list against the daemon's settings, issue 19)", () => {
  it("is true for equal settings, enable/disable in any order, and an unset group or switch against an absent one", () => {
    expect(sameExposure(DEFAULT_EXPOSURE, s({}))).toBe(true);
    expect(sameExposure(s({ enable: ["get_load", "plan"] }), s({ enable: ["plan", "get_load"] }))).toBe(true);
    expect(sameExposure(s({ groups: {} }), s({ groups: { logs: undefined } }))).toBe(true);
    expect(sameExposure(s({ switches: {} }), s({ switches: { "exec.enabled": undefined } }))).toBe(true);
  });

  it("is false when any part differs: exposure, a group, a name, a switch", () => {
    expect(sameExposure(DEFAULT_EXPOSURE, s({ exposure: "read_only" }))).toBe(false);
    expect(sameExposure(DEFAULT_EXPOSURE, s({ groups: { hosts: true } }))).toBe(false);
    expect(sameExposure(s({ groups: { hosts: false } }), s({ groups: { hosts: true } }))).toBe(false);
    expect(sameExposure(DEFAULT_EXPOSURE, s({ disable: ["read_journal"] }))).toBe(false);
    expect(sameExposure(s({ enable: ["a", "a"] }), s({ enable: ["a", "b"] }))).toBe(false);
    expect(sameExposure(DEFAULT_EXPOSURE, s({ switches: { "exec.enabled": false } }))).toBe(false);
    expect(sameExposure(s({ switches: { "exec.enabled": true } }), s({ switches: { "exec.enabled": false } }))).toBe(false);
  });
});

describe("frontNarrows (a front may hide what its daemon offers, never add; issue 19)", () => {
  const exec: ToolExposure = { toolsets: ["hosts"], read_only: false, off_by_default: "exec.enabled" };
  const plan: ToolExposure = { toolsets: ["approval"], read_only: false };
  const load: ToolExposure = { toolsets: ["host"], read_only: true };
  const offered = (name: string, t: ToolExposure, own: ExposureSettings): boolean => frontNarrows(name, t, own).offered;

  it("a front config that says nothing hides nothing, exec_on_host included (the daemon's exec.enabled decides)", () => {
    for (const [n, t] of [["exec_on_host", exec], ["plan", plan], ["get_load", load]] as const) expect(offered(n, t, DEFAULT_EXPOSURE), n).toBe(true);
  });

  it("hides by what narrows: read_only exposure, tools.disable, a group false, exec.enabled false", () => {
    expect(offered("plan", plan, s({ exposure: "read_only" }))).toBe(false);
    expect(offered("exec_on_host", exec, s({ exposure: "read_only" }))).toBe(false);
    expect(offered("get_load", load, s({ exposure: "read_only" }))).toBe(true);
    expect(offered("get_load", load, s({ disable: ["get_load"] }))).toBe(false);
    expect(offered("plan", plan, s({ groups: { approval: false } }))).toBe(false);
    expect(offered("exec_on_host", exec, s({ groups: { hosts: false } }))).toBe(false);
    const off = frontNarrows("exec_on_host", exec, s({ switches: { "exec.enabled": false } }));
    expect(off).toEqual({ offered: false, reason: "exec.enabled is false", fix: "set exec.enabled: true" });
  });

  it("tools.enable keeps a tool whose group the same front config turns off; a switch true does nothing", () => {
    expect(offered("plan", plan, s({ groups: { approval: false }, enable: ["plan"] }))).toBe(true);
    expect(offered("exec_on_host", exec, s({ switches: { "exec.enabled": true } }))).toBe(true);
  });
});
