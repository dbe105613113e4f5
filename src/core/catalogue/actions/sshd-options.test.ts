import { describe, expect, it } from "vitest";
import { checkSshdOption, effectiveValue, includesDropIns, sshdDropInPath } from "./sshd-options.ts";

describe("sshd option rules (SetSshdOption)", () => {
  it("matches option names without regard to case, as sshd does, and answers the canonical spelling", () => {
    expect(checkSshdOption("passwordauthentication", " no ")).toEqual({ option: "PasswordAuthentication", value: "no" });
    expect(sshdDropInPath("PasswordAuthentication")).toBe("/etc/ssh/sshd_config.d/01-hostgate-passwordauthentication.conf");
  });

  it.each([["Match", /conditionally/], ["INCLUDE", /reads other files/], ["Subsystem", /runs a program/], ["PermitUserEnvironment", /LD_PRELOAD/], ["Port", /not on the allow-list/]])("refuses %s, saying why", (option, why) => {
    expect(() => checkSshdOption(option, "x")).toThrow(why);
  });

  it("checks values per option", () => {
    expect(() => checkSshdOption("PermitRootLogin", "prohibit-password")).not.toThrow();
    expect(() => checkSshdOption("PermitRootLogin", "sometimes")).toThrow('PermitRootLogin does not take the value "sometimes".');
    expect(() => checkSshdOption("LoginGraceTime", "2m")).not.toThrow();
    expect(() => checkSshdOption("MaxAuthTries", "-1")).toThrow(/does not take/);
  });

  it("finds the Include of the drop-in directory, not a commented one", () => {
    expect(includesDropIns("# x\nInclude /etc/ssh/sshd_config.d/*.conf\nPort 22\n")).toBe(true);
    expect(includesDropIns("Include sshd_config.d/*.conf\n")).toBe(true);
    expect(includesDropIns("#Include /etc/ssh/sshd_config.d/*.conf\n")).toBe(false);
    expect(includesDropIns("Port 22\n")).toBe(false);
  });

  it("reads one keyword of an `sshd -T` dump", () => {
    const dump = "port 22\nmaxauthtries 6\npidfile /run/sshd.pid\n";
    expect(effectiveValue(dump, "MaxAuthTries")).toBe("6");
    expect(effectiveValue(dump, "pidfile")).toBe("/run/sshd.pid");
    expect(effectiveValue(dump, "LogLevel")).toBeNull();
  });
});
