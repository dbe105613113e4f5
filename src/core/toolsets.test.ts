import { describe, expect, it } from "vitest";
import { DEFAULT_EXPOSURE, sameExposure, type ExposureSettings } from "./toolsets.ts";

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
