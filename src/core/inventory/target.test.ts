import { describe, expect, it } from "vitest";
import { shellJoin, shellQuote, validateSshHost, validateSshPort, validateSshUser } from "./target.ts";

const refused = (f: () => unknown): void => {
  expect(f).toThrow(expect.objectContaining({ code: "invalid_target" }));
};

describe("SSH target validation (corpus ssh cases)", () => {
  it("S001: a leading '-' is refused (ssh would read -oProxyCommand=id as an option)", () => {
    refused(() => validateSshHost("-oProxyCommand=id"));
    refused(() => validateSshUser("-oProxyCommand=id"));
  });
  it("S002: the bracketed form is refused after stripping brackets, and no :path/:port suffix passes", () => {
    refused(() => validateSshHost("[-oProxyCommand=id]:/srv"));
    refused(() => validateSshHost("[-oProxyCommand=id]"));
    refused(() => validateSshHost("[db1]"));
    expect(validateSshHost("[2001:db8::1]")).toBe("2001:db8::1");
  });
  it("S004: $( ) and backticks are not host name characters (CVE-2023-51385)", () => {
    refused(() => validateSshHost("db$(id).example.com"));
    refused(() => validateSshHost("db`id`.example.com"));
  });
  it("S005: whitespace, $, { and } are refused (touch${IFS}/tmp/p)", () => {
    refused(() => validateSshHost("touch${IFS}/tmp/p"));
    refused(() => validateSshHost("a b"));
    refused(() => validateSshHost("a\tb"));
  });
  it("S018: control characters (a newline smuggling a second command) are refused in host and user", () => {
    refused(() => validateSshHost("check\nuseradd"));
    refused(() => validateSshUser("root\nuseradd"));
  });
  it("accepts host names, IPv4, IPv6 and plain users", () => {
    expect(validateSshHost("db-1.example.com")).toBe("db-1.example.com");
    expect(validateSshHost("10.0.0.5")).toBe("10.0.0.5");
    expect(validateSshHost("fe80::1%eth0")).toBe("fe80::1%eth0");
    expect(validateSshHost("lab1")).toBe("lab1");
    expect(validateSshUser("deploy")).toBe("deploy");
    expect(validateSshUser("svc_backup$")).toBe("svc_backup$");
    refused(() => validateSshHost("999.1.1.1"));
    refused(() => validateSshHost(""));
    refused(() => validateSshHost("a;b"));
    refused(() => validateSshHost("a|b"));
    refused(() => validateSshPort(0));
    refused(() => validateSshPort(70000));
  });
  it("S019: each argv element is quoted for the remote POSIX shell", () => {
    expect(shellJoin(["grep", "-r", "a b;c", "/var/log"])).toBe("grep -r 'a b;c' /var/log");
    expect(shellQuote("it's")).toBe("'it'\\''s'");
    expect(shellQuote("")).toBe("''");
    expect(shellQuote("$(id)")).toBe("'$(id)'");
  });
});
