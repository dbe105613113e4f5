import { describe, expect, it } from "vitest";
import { exposureOf } from "../core/toolsets.ts";
import { METHODS } from "../ipc/methods.ts";
import { toolExposureOf } from "../mcp/tools/fixed.ts";
import { exposureSettings } from "./exposure.ts";
import { ConfigSchema } from "./schema.ts";

const messages = (raw: unknown): string[] => {
  const r = ConfigSchema.safeParse(raw);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
};
const execOffered = (raw: unknown): boolean => exposureOf("exec_on_host", METHODS.exec_on_host.tool!, exposureSettings(ConfigSchema.parse(raw))).offered;

describe("exec.enabled (issue 22: the first remote command)", () => {
  it("turns exec_on_host on; absent it is off; the older keys still work", () => {
    expect(execOffered({})).toBe(false);
    expect(execOffered({ exec: { enabled: true } })).toBe(true);
    expect(execOffered({ exec: { enabled: false } })).toBe(false);
    expect(execOffered({ tools: { enable: ["exec_on_host"] } })).toBe(true);
    expect(execOffered({ tools: { groups: { hosts: true } } })).toBe(true);
    expect(execOffered({ exec: { enabled: false }, tools: { groups: { hosts: true } } })).toBe(false);
  });

  it("a config that contradicts it is an error saying what to write", () => {
    expect(messages({ exec: { enabled: false }, tools: { enable: ["exec_on_host"] } })).toEqual([
      "exec.enabled: exec.enabled: false contradicts tools.enable: [exec_on_host]; to offer exec_on_host write exec.enabled: true (and drop it from tools.enable)",
    ]);
    expect(messages({ exec: { enabled: true }, tools: { disable: ["exec_on_host"] } })).toEqual(["exec.enabled: exec.enabled: true contradicts tools.disable: [exec_on_host]; keep one of them"]);
    expect(messages({ exec: { enabled: true }, tools: { exposure: "read_only" } })).toEqual([
      "exec.enabled: exec.enabled: true cannot work with tools.exposure: read_only (exec_on_host runs commands); set tools.exposure: all, or remove exec.enabled",
    ]);
    expect(messages({ exec: { enabled: "yes" } })[0]).toMatch(/^exec\.enabled: /);
  });
});

describe("one exposure entry per tool (ipc/methods.ts `tool`)", () => {
  it("a tool whose readOnlyHint disagrees with its method entry does not build", () => {
    expect(() => toolExposureOf("plan", { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false })).toThrow(/plan's tool\.read_only \(false\) disagrees/);
    expect(() => toolExposureOf("describe", { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false })).toThrow(/describe has no `tool` entry/);
  });
});
