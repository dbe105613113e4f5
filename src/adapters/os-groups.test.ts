import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { lookupGroupId } from "./os-groups.ts";

let dir = "";
afterEach(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

describe("lookupGroupId (daemon.agent_group / admin_group → gid)", () => {
  it("reads the group file it is given with core's group(5) parser; a missing group or file is null", () => {
    dir = mkdtempSync(join(tmpdir(), "hg-os-groups-"));
    const file = join(dir, "group");
    writeFileSync(file, "# c\n+hostgate:::\nhostgate:x:998:alice\nadm:x:4:\n");
    expect(lookupGroupId("hostgate", file)).toBe(998);
    expect(lookupGroupId("adm", file)).toBe(4);
    expect(lookupGroupId("wheel", file)).toBeNull();
    expect(lookupGroupId("hostgate", join(dir, "absent"))).toBeNull();
  });
});
