import { describe, expect, it } from "vitest";
import type { ExposureSettings, Toolset } from "../core/toolsets.ts";
import type { ToolSpec } from "./tool-spec.ts";
import { assertKnownToolNames, exposeTools, selectTools } from "./toolsets.ts";

function tool(name: string, toolsets: Toolset[], readOnly = true): ToolSpec {
  return {
    name,
    title: name,
    description: name,
    inputSchema: { type: "object" },
    annotations: { readOnlyHint: readOnly, destructiveHint: !readOnly, idempotentHint: readOnly, openWorldHint: false },
    toolsets,
    method: "doctor",
    handler: () => Promise.reject(new Error("not called")),
  };
}

const ALL = [
  tool("get_load", ["host"]),
  tool("read_log_file", ["logs"]),
  tool("search_packages", ["packages"]),
  tool("plan", ["approval"], false),
  tool("execute", ["approval"], false),
  tool("doctor", []),
  tool("multi", ["logs", "host"]),
];

function tools(over: Partial<ExposureSettings> = {}): ExposureSettings {
  return { exposure: "all", groups: {}, enable: [], disable: [], switches: {}, ...over };
}

const names = (ts: ToolSpec[]): string[] => ts.map((t) => t.name);

describe("selectTools", () => {
  it("shows every tool by default, in input order", () => {
    expect(names(selectTools(ALL, tools()))).toEqual(names(ALL));
  });

  it("exposure read_only hides non-read-only tools, even when enabled", () => {
    const visible = names(selectTools(ALL, tools({ exposure: "read_only", enable: ["plan"] })));
    expect(visible).not.toContain("plan");
    expect(visible).not.toContain("execute");
    expect(visible).toEqual(["get_load", "read_log_file", "search_packages", "doctor", "multi"]);
  });

  it("a group switched off hides its tools; a tool in several groups stays while any is on", () => {
    const visible = names(selectTools(ALL, tools({ groups: { logs: false } })));
    expect(visible).not.toContain("read_log_file");
    expect(visible).toContain("multi");
    expect(names(selectTools(ALL, tools({ groups: { logs: false, host: false } })))).not.toContain("multi");
  });

  it("a tool in no group is always visible unless disabled", () => {
    expect(names(selectTools(ALL, tools({ groups: { host: false, logs: false, packages: false, approval: false } })))).toEqual(["doctor"]);
    expect(names(selectTools(ALL, tools({ disable: ["doctor"] })))).not.toContain("doctor");
  });

  it("enable shows a tool whose groups are all off", () => {
    const visible = names(selectTools(ALL, tools({ groups: { approval: false }, enable: ["plan"] })));
    expect(visible).toContain("plan");
    expect(visible).not.toContain("execute");
  });

  it("disable hides a tool whose group is on", () => {
    const visible = names(selectTools(ALL, tools({ disable: ["get_load"] })));
    expect(visible).not.toContain("get_load");
    expect(visible).toContain("multi");
  });

  it("a front's own config: unknown names in enable or disable throw, naming them", () => {
    expect(() => { assertKnownToolNames(ALL, tools({ enable: ["nope"] })); }).toThrow(/nope/);
    expect(() => { assertKnownToolNames(ALL, tools({ disable: ["get_load", "gone"] })); }).toThrow(/gone/);
    expect(() => { assertKnownToolNames(ALL, tools({ enable: ["plan"], disable: ["get_load"] })); }).not.toThrow();
  });

  it("the daemon's settings: a name that is no tool here is ignored, the others still apply", () => {
    expect(names(selectTools(ALL, tools({ disable: ["get_load", "gone"] })))).not.toContain("get_load");
    expect(names(selectTools(ALL, tools({ enable: ["nope"] })))).toEqual(names(selectTools(ALL, tools())));
  });
});

describe("off_by_default tools (exec_on_host)", () => {
  const exec = { ...tool("exec_on_host", ["hosts"], false), off_by_default: "exec.enabled" };
  const HOSTS = [tool("search_hosts", ["hosts"]), exec];
  it("is hidden by default while the read-only tools of its group show", () => {
    expect(names(selectTools(HOSTS, tools()))).toEqual(["search_hosts"]);
  });
  it("shows when tools.enable names it or its group is set true explicitly", () => {
    expect(names(selectTools(HOSTS, tools({ enable: ["exec_on_host"] })))).toEqual(["search_hosts", "exec_on_host"]);
    expect(names(selectTools(HOSTS, tools({ groups: { hosts: true } })))).toEqual(["search_hosts", "exec_on_host"]);
  });
  it("exec.enabled: true shows it (even with its group off); false hides it whatever the older keys say", () => {
    expect(names(selectTools(HOSTS, tools({ switches: { "exec.enabled": true } })))).toEqual(["search_hosts", "exec_on_host"]);
    expect(names(selectTools(HOSTS, tools({ switches: { "exec.enabled": true }, groups: { hosts: false } })))).toEqual(["exec_on_host"]);
    expect(names(selectTools(HOSTS, tools({ switches: { "exec.enabled": false }, groups: { hosts: true } })))).toEqual(["search_hosts"]);
  });
  it("says why each hidden tool is hidden and what to write to show it", () => {
    const { hidden } = exposeTools([...HOSTS, ...ALL], tools({ groups: { logs: false } }));
    expect(hidden.get("exec_on_host")).toEqual({ reason: "exec_on_host is off unless exec.enabled is true", fix: "set exec.enabled: true" });
    expect(hidden.get("read_log_file")).toEqual({ reason: "its group is off (tools.groups.logs: false)", fix: "set tools.groups.logs: true, or add read_log_file to tools.enable" });
    expect(exposeTools(ALL, tools({ exposure: "read_only" })).hidden.get("plan")).toMatchObject({ fix: "set tools.exposure: all" });
    expect(exposeTools(ALL, tools({ disable: ["doctor"] })).hidden.get("doctor")).toMatchObject({ fix: "remove doctor from tools.disable" });
  });
  it("never passes exposure: read_only or tools.disable", () => {
    expect(names(selectTools(HOSTS, tools({ exposure: "read_only", enable: ["exec_on_host"] })))).toEqual(["search_hosts"]);
    expect(names(selectTools(HOSTS, tools({ groups: { hosts: true }, disable: ["exec_on_host"] })))).toEqual(["search_hosts"]);
  });
});
