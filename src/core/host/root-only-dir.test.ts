import { describe, expect, it } from "vitest";
import { chainOf, rootOnlyDirRefusal } from "./root-only-dir.ts";

const dir = (uid: number, mode: number): { is_directory: boolean; is_symlink: boolean; uid: number; mode: number } => ({ is_directory: true, is_symlink: false, uid, mode });

describe("rootOnlyDirRefusal: a directory only root can change (AddSwapFile's chain rule)", () => {
  it("accepts root-owned directories without group/other write, whatever else is set", () => {
    for (const mode of [0o755, 0o700, 0o555, 0o1755, 0o2755]) expect(rootOnlyDirRefusal("/d", dir(0, mode)), mode.toString(8)).toBeNull();
  });

  it("refuses another owner, group or other write (the sticky bit does not help), links, non-directories and unknown facts", () => {
    expect(rootOnlyDirRefusal("/home/alice", dir(1000, 0o755))).toBe("/home/alice is owned by uid 1000, not root");
    expect(rootOnlyDirRefusal("/tmp", dir(0, 0o1777))).toBe("/tmp is writable by its group and everyone (mode 1777; the sticky bit does not stop a new name being planted)");
    expect(rootOnlyDirRefusal("/srv/g", dir(0, 0o775))).toBe("/srv/g is writable by its group (mode 0775)");
    expect(rootOnlyDirRefusal("/srv/o", dir(0, 0o757))).toBe("/srv/o is writable by everyone (mode 0757)");
    expect(rootOnlyDirRefusal("/l", { ...dir(0, 0o777), is_symlink: true, is_directory: false })).toBe("/l is a symbolic link");
    expect(rootOnlyDirRefusal("/f", { ...dir(0, 0o644), is_directory: false })).toBe("/f is not a directory");
    expect(rootOnlyDirRefusal("/u", { is_directory: true, is_symlink: false })).toBe("the owner and mode of /u cannot be read on this host");
  });

  it("chainOf lists / down to the directory; malformed paths are a caller bug", () => {
    expect(chainOf("/")).toEqual(["/"]);
    expect(chainOf("/home/alice")).toEqual(["/", "/home", "/home/alice"]);
    for (const bad of ["home", "/a/../b", "/a//b", "/a/", "/a/./b"]) expect(() => chainOf(bad), bad).toThrow(/not an absolute, normalised directory/);
  });
});
