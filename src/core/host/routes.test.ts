import { describe, expect, it } from "vitest";
import { ipv6OfHex, parseProcNetIpv6Route, parseProcNetRoute } from "./routes.ts";
import { parseDpkgStatus } from "./dpkg-status.ts";

describe("routing table files", () => {
  it("IPv6 hex compresses as RFC 5952 (longest zero run, first on a tie, no single-group ::)", () => {
    expect(ipv6OfHex("00000000000000000000000000000000")).toBe("::");
    expect(ipv6OfHex("00000000000000000000000000000001")).toBe("::1");
    expect(ipv6OfHex("fd000000000000000000000000000001")).toBe("fd00::1");
    expect(ipv6OfHex("20010db8000000010000000000000001")).toBe("2001:db8:0:1::1");
    expect(ipv6OfHex("20010db8000000000001000000000001")).toBe("2001:db8::1:0:0:1");
    expect(ipv6OfHex("20010db8000100010001000100010001")).toBe("2001:db8:1:1:1:1:1:1");
    expect(ipv6OfHex("20010db8000000010001000100010001")).toBe("2001:db8:0:1:1:1:1:1");
  });

  it("/proc/net/route: little-endian fields, default route, down routes skipped (captured from Debian 12)", () => {
    const text = "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n"
      + "eth0\t00000000\t010200C0\t0003\t0\t0\t100\t00000000\t0\t0\t0\n"
      + "eth0\t000200C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n"
      + "eth1\t0000A8C0\t00000000\t0000\t0\t0\t0\t0000FFFF\t0\t0\t0\n";
    expect(parseProcNetRoute(text)).toEqual([
      { family: "IPv4", destination: "0.0.0.0/0", gateway: "192.0.2.1", dev: "eth0", metric: 100, type: "unicast" },
      { family: "IPv4", destination: "192.0.2.0/24", gateway: null, dev: "eth0", metric: 0, type: "unicast" },
    ]);
  });

  it("/proc/net/ipv6_route: local and multicast typed, the kernel's reject placeholder left out", () => {
    const text = [
      "00000000000000000000000000000000 00 00000000000000000000000000000000 00 fd000000000000000000000000000001 00000400 00000003 00000000 00000003     eth0",
      "00000000000000000000000000000001 80 00000000000000000000000000000000 00 00000000000000000000000000000000 00000000 00000004 00000000 80200001       lo",
      "ff000000000000000000000000000000 08 00000000000000000000000000000000 00 00000000000000000000000000000000 00000100 00000002 00000000 00000001     eth0",
      "00000000000000000000000000000000 00 00000000000000000000000000000000 00 00000000000000000000000000000000 ffffffff 00000001 00000000 00200200       lo",
    ].join("\n");
    expect(parseProcNetIpv6Route(text)).toEqual([
      { family: "IPv6", destination: "::/0", gateway: "fd00::1", dev: "eth0", metric: 1024, type: "unicast" },
      { family: "IPv6", destination: "::1/128", gateway: null, dev: "lo", metric: 0, type: "local" },
      { family: "IPv6", destination: "ff00::/8", gateway: null, dev: "eth0", metric: 256, type: "multicast" },
    ]);
  });
});

describe("dpkg status file", () => {
  it("keeps installed stanzas only, sizes in bytes, continuation lines ignored", () => {
    const text = [
      "Package: a", "Status: install ok installed", "Architecture: amd64", "Version: 1.0", "Installed-Size: 10", "Description: x", " long text", "",
      "Package: b", "Status: deinstall ok config-files", "Version: 2", "",
      "Package: c", "Status: install ok installed", "Architecture: all", "Version: 3:1.2-1", "",
    ].join("\n");
    expect(parseDpkgStatus(text)).toEqual([
      { name: "a", version: "1.0", architecture: "amd64", installed_size_bytes: 10240 },
      { name: "c", version: "3:1.2-1", architecture: "all", installed_size_bytes: null },
    ]);
  });
});
