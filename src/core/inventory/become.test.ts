import { describe, expect, it } from "vitest";
import { becomePrefix, rootRequired, sudoFailure } from "./become.ts";

describe("become: sudo's own failures, read from its stderr", () => {
  it("S016: a prompt sudo -n refused is sudo_password_required, naming the NOPASSWD rule to add", () => {
    const e = sudoFailure("sudo: a password is required\n", 1, "web1", "deploy");
    expect(e).toMatchObject({ code: "sudo_password_required", hint: expect.stringContaining("deploy ALL=(root) NOPASSWD") as string });
  });

  it("requiretty, a user sudo refuses, and no sudo at all are privilege_unavailable with what to change", () => {
    expect(sudoFailure("sudo: sorry, you must have a tty to run sudo\n", 1, "h", "u")).toMatchObject({ code: "privilege_unavailable", hint: expect.stringContaining("!requiretty") as string });
    expect(sudoFailure("u is not in the sudoers file.  This incident will be reported.\n", 1, "h", "u")).toMatchObject({ code: "privilege_unavailable" });
    expect(sudoFailure("sh: 1: sudo: not found\n", 127, "h", "u")).toMatchObject({ code: "privilege_unavailable", message: expect.stringContaining("not installed") as string });
  });

  it("a failure of the command behind sudo is not sudo's (null)", () => {
    expect(sudoFailure("cp: cannot stat 'x': No such file or directory\n", 1, "h", "u")).toBeNull();
    expect(sudoFailure("", 0, "h", "u")).toBeNull();
  });

  it("prefix and the non-root error", () => {
    expect(becomePrefix("sudo")).toEqual(["sudo", "-n", "--"]);
    expect(becomePrefix("none")).toEqual([]);
    expect(rootRequired("h", "plain")).toMatchObject({ code: "privilege_unavailable", hint: expect.stringContaining("become: sudo") as string });
  });
});
