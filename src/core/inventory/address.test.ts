import { describe, expect, it } from "vitest";
import { isIpLiteral, normaliseHost, parseInetAton } from "./address.ts";
import { validateSshHost } from "./target.ts";

describe("numeric host forms are normalised before policy sees the address (issue 21)", () => {
  it("every inet_aton spelling of 127.0.0.1 becomes 127.0.0.1", () => {
    for (const form of ["0x7f000001", "2130706433", "127.1", "0177.0.0.1", "127.0.1", "0x7f.1", "0x7F.0.0.01", "017700000001", "127.0.0.1"]) {
      expect(parseInetAton(form), form).toBe("127.0.0.1");
      expect(normaliseHost(form), form).toBe("127.0.0.1");
      expect(validateSshHost(form), form).toBe("127.0.0.1");
    }
    expect(normaliseHost("10.1")).toBe("10.0.0.1");
    expect(normaliseHost("0")).toBe("0.0.0.0");
  });
  it("parts out of their byte range, bad octal digits and empty parts are not addresses (and stay refused as hosts)", () => {
    for (const bad of ["256.1.1.1", "1.2.3.256", "1.2.65536", "4294967296", "08.1.1.1", "1..1", "1.2.3.4.5", "127.0.0.1.", "0x1g", ""]) {
      expect(parseInetAton(bad), bad).toBeNull();
    }
    for (const bad of ["999.1.1.1", "256.1.1.1", "08.1.1.1", "1.2.3.4.5"]) expect(() => validateSshHost(bad), bad).toThrow(expect.objectContaining({ code: "invalid_target" }));
  });
  it("IPv6: one text per address (RFC 5952), IPv4-mapped becomes IPv4, scope kept", () => {
    expect(normaliseHost("0:0:0:0:0:0:0:1")).toBe("::1");
    expect(normaliseHost("[::1]")).toBe("::1");
    expect(normaliseHost("2001:DB8:0:0:1:0:0:1")).toBe("2001:db8::1:0:0:1");
    expect(normaliseHost("2001:0db8:0000:0000:0000:0000:0000:0001")).toBe("2001:db8::1");
    expect(normaliseHost("::ffff:127.0.0.1")).toBe("127.0.0.1");
    expect(normaliseHost("::ffff:7f00:1")).toBe("127.0.0.1");
    expect(normaliseHost("fe80::1%eth0")).toBe("fe80::1%eth0");
    expect(normaliseHost("1:2:3:4:5:6:7:8")).toBe("1:2:3:4:5:6:7:8");
  });
  it("names: lower case, no trailing dot; IP literal detection", () => {
    expect(normaliseHost("Web-1.Example.COM.")).toBe("web-1.example.com");
    expect(isIpLiteral("0x7f000001")).toBe(true);
    expect(isIpLiteral("::1")).toBe(true);
    expect(isIpLiteral("localhost")).toBe(false);
    expect(isIpLiteral("db-1.example.com")).toBe(false);
  });
});
