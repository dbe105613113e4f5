import { describe, expect, it } from "vitest";
import { LISTED_BY_DEFAULT, isListed } from "../core/catalogue/surface.ts";
import { CATALOGUE } from "../core/catalogue/index.ts";
import type { ExposureSettings } from "../core/toolsets.ts";
import type { ActionDescriptor } from "../ipc/protocol.ts";
import { FIXED_TOOLS, splitListed } from "./server.ts";
import { directTool } from "./tools/direct.ts";

/** A read-only action of a new toolset, as r24b's would be described: not in LISTED_BY_DEFAULT. */
const listUsers: ActionDescriptor = {
  action: "ListUsers", title: "List users", description: "Accounts.", input_schema: { type: "object", properties: {} }, output_schema: { type: "object" },
  access: "read_only", risk_level: "low", toolsets: ["accounts"], host_derived: true,
};
const getLoad: ActionDescriptor = { ...listUsers, action: "GetLoad", toolsets: ["host"] };
const settings = (over: Partial<ExposureSettings> = {}): ExposureSettings => ({ exposure: "all", groups: {}, enable: [], disable: [], switches: {}, ...over });
const names = (tools: readonly { name: string }[]): string[] => tools.map((t) => t.name);

describe("which offered tools tools/list lists (issue 24, core/catalogue/surface.ts)", () => {
  const offered = [...FIXED_TOOLS, directTool(getLoad)!, directTool(listUsers)!];

  it("a new toolset's read is unlisted by default (reached through find_actions + read_action); fixed tools always listed", () => {
    const { listed, unlisted } = splitListed(offered, settings());
    expect(names(unlisted)).toEqual(["list_users"]);
    expect(names(listed)).toEqual(expect.arrayContaining(["get_load", "find_actions", "read_action", "plan"]));
  });

  it("setting its toolset true in the config lists it; so does tools.enable naming it", () => {
    expect(names(splitListed(offered, settings({ groups: { accounts: true } })).unlisted)).toEqual([]);
    expect(names(splitListed(offered, settings({ enable: ["list_users"] })).unlisted)).toEqual([]);
    expect(names(splitListed(offered, settings({ groups: { host: true } })).unlisted)).toEqual(["list_users"]);
  });

  it("LISTED_BY_DEFAULT names read-only catalogue actions only", () => {
    for (const n of LISTED_BY_DEFAULT) expect(CATALOGUE.find((a) => a.name === n)?.access, n).toBe("read_only");
    expect(isListed("ListUsers", "list_users", ["accounts"], settings())).toBe(false);
  });
});
