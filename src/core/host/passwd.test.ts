import { describe, expect, it } from "vitest";
import { groupIdIn, groupNameIn, parseGroup } from "./passwd.ts";

const GROUP = "# local groups\n\n+@nis:::\n-gone:x:7:\nroot:x:0:\nadm:x:4:syslog,alice\nbroken:x:abc:\nshort:x:9\nstaff:x:50:\nstaff2:x:50:bob\n";

describe("/etc/group (group(5)): one parser for names → gids and gids → names", () => {
  it("skips comments, NIS +/- lines and malformed lines; keeps members", () => {
    expect(parseGroup(GROUP)).toEqual([
      { name: "root", gid: 0, members: [] },
      { name: "adm", gid: 4, members: ["syslog", "alice"] },
      { name: "staff", gid: 50, members: [] },
      { name: "staff2", gid: 50, members: ["bob"] },
    ]);
  });

  it("groupIdIn and groupNameIn answer from the same entries: the first match, null for none", () => {
    expect(groupIdIn(GROUP, "adm")).toBe(4);
    expect(groupIdIn(GROUP, "broken")).toBeNull();
    expect(groupIdIn(GROUP, "gone")).toBeNull();
    expect(groupIdIn(GROUP, "nobody-here")).toBeNull();
    expect(groupNameIn(GROUP, 50)).toBe("staff");
    expect(groupNameIn(GROUP, 7)).toBeNull();
    expect(groupNameIn("", 0)).toBeNull();
    for (const g of parseGroup(GROUP)) expect(groupIdIn(GROUP, groupNameIn(GROUP, g.gid)!)).toBe(g.gid);
  });
});
