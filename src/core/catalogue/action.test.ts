import { describe, expect, it } from "vitest";
import { toolNameOf } from "./action.ts";

describe("toolNameOf", () => {
  it.each([
    ["GetDiskUsage", "get_disk_usage"],
    ["ListListeningPorts", "list_listening_ports"],
    ["GetLoad", "get_load"],
    ["ReadLogFile", "read_log_file"],
    ["GetHTTPStatus", "get_http_status"],
    ["Get", "get"],
  ])("%s → %s", (action, tool) => {
    expect(toolNameOf(action)).toBe(tool);
  });
});
