import { describe, expect, it } from "vitest";
import { parseIpAddressJson } from "./ip-addr.ts";

describe("parseIpAddressJson (ip -j address show → HostProbe address map)", () => {
  const link = (over: object) => ({ ifname: "eth0", flags: ["BROADCAST", "UP", "LOWER_UP"], operstate: "UP", addr_info: [], ...over });

  it("maps addresses with netmasks as inet_ntop writes them, keyed by label or interface", () => {
    const text = JSON.stringify([
      link({ ifname: "lo", flags: ["LOOPBACK", "UP", "LOWER_UP"], operstate: "UNKNOWN", addr_info: [{ family: "inet", local: "127.0.0.1", prefixlen: 8, label: "lo" }, { family: "inet6", local: "::1", prefixlen: 128 }] }),
      link({ addr_info: [{ family: "inet", local: "10.1.2.3", prefixlen: 22, label: "eth0:1" }, { family: "inet6", local: "fe80::1", prefixlen: 64 }, { family: "inet6", local: "fd00::5", prefixlen: 20 }] }),
    ]);
    expect(parseIpAddressJson(text)).toEqual({
      lo: [
        { family: "IPv4", address: "127.0.0.1", netmask: "255.0.0.0", cidr: "127.0.0.1/8" },
        { family: "IPv6", address: "::1", netmask: "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", cidr: "::1/128" },
      ],
      "eth0:1": [{ family: "IPv4", address: "10.1.2.3", netmask: "255.255.252.0", cidr: "10.1.2.3/22" }],
      eth0: [
        { family: "IPv6", address: "fe80::1", netmask: "ffff:ffff:ffff:ffff::", cidr: "fe80::1/64" },
        { family: "IPv6", address: "fd00::5", netmask: "ffff:f000::", cidr: "fd00::5/20" },
      ],
    });
  });

  it("leaves out links that are down or not running, as os.networkInterfaces() does", () => {
    const addr = [{ family: "inet", local: "10.0.0.1", prefixlen: 24 }];
    const text = JSON.stringify([link({ ifname: "a", flags: ["BROADCAST"], addr_info: addr }), link({ ifname: "b", operstate: "DOWN", addr_info: addr }), link({ ifname: "c", operstate: "LOWERLAYERDOWN", addr_info: addr })]);
    expect(parseIpAddressJson(text)).toEqual({});
  });

  it("a /0 and a /33-style odd prefix give well-formed masks", () => {
    const text = JSON.stringify([link({ addr_info: [{ family: "inet", local: "0.0.0.0", prefixlen: 0 }, { family: "inet6", local: "2001:db8::", prefixlen: 112 }] })]);
    expect(parseIpAddressJson(text).eth0!.map((a) => a.netmask)).toEqual(["0.0.0.0", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:0"]);
  });

  it("text that is not iproute2 JSON is unavailable, saying why", () => {
    expect(() => parseIpAddressJson("Usage: ip address")).toThrow(expect.objectContaining({ code: "unavailable", hint: expect.stringContaining("4.14") as unknown }));
    expect(() => parseIpAddressJson("{}")).toThrow(expect.objectContaining({ code: "unavailable" }));
  });
});
