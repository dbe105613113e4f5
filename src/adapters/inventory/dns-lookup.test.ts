import { lookup } from "node:dns/promises";
import { describe, expect, it } from "vitest";
import { parseInetAton } from "../../core/inventory/address.ts";
import { dnsLookup } from "./dns-lookup.ts";

describe("address normalisation agrees with the C library ssh uses (getaddrinfo)", () => {
  it("each numeric form resolves, through the real resolver, to the address parseInetAton gives", async () => {
    for (const form of ["0x7f000001", "2130706433", "127.1", "0177.0.0.1", "0x7f.1", "10.1", "192.168.257"]) {
      const os = await lookup(form, { family: 4 });
      expect(parseInetAton(form), form).toBe(os.address);
    }
  });
  it("dnsLookup answers localhost from /etc/hosts, [] for a name that cannot exist, and never throws", async () => {
    const l = dnsLookup({ timeout_ms: 2000, ttl_ms: 60_000 });
    expect(await l("localhost")).toContain("127.0.0.1");
    expect(await l("hg-no-such-host.invalid")).toEqual([]);
  });
});
