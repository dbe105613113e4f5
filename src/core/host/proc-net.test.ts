import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeProcAddress, parseSocketTable, TCP_LISTEN, UDP_UNCONNECTED } from "./proc-net.ts";

describe("decodeProcAddress", () => {
  it.each([
    ["0100007F", "127.0.0.1"],
    ["00000000", "0.0.0.0"],
    ["0101A8C0", "192.168.1.1"],
    ["FFFFFFFF", "255.255.255.255"],
  ])("IPv4 %s → %s (little-endian word)", (hex, addr) => {
    expect(decodeProcAddress(hex)).toBe(addr);
  });

  it.each([
    ["00000000000000000000000001000000", "::1"],
    ["00000000000000000000000000000000", "::"],
    ["0000000000000000FFFF00000100007F", "::ffff:127.0.0.1"],
    ["0000000000000000ffff00000100007f", "::ffff:127.0.0.1"],
    ["0000000000000000FFFF00000101A8C0", "::ffff:192.168.1.1"],
    ["000080FE00000000FF005452E48212FE", "fe80::5254:ff:fe12:82e4"],
    ["B80D0120000000000000000001000000", "2001:db8::1"],
    ["B80D0120010000000000000001000000", "2001:db8:0:1::1"],
  ])("IPv6 %s → %s", (hex, addr) => {
    expect(decodeProcAddress(hex)).toBe(addr);
  });

  /** Encodes 8 IPv6 groups the way the kernel prints them: four 32-bit words, each little-endian, upper case. */
  const procHex = (groups: number[]): string => {
    const bytes = groups.flatMap((g) => [g >> 8, g & 0xff]);
    let hex = "";
    for (let w = 0; w < 4; w++) hex += bytes.slice(w * 4, w * 4 + 4).reverse().map((b) => b.toString(16).padStart(2, "0")).join("");
    return hex.toUpperCase();
  };

  it.each([
    [[0x2001, 0, 0, 0, 1, 0, 0, 1], "2001::1:0:0:1"], // longest run wins
    [[0x2001, 0, 0, 1, 0, 0, 0, 1], "2001:0:0:1::1"], // longest run wins even when later
    [[0x2001, 0, 0, 1, 0, 0, 1, 1], "2001::1:0:0:1:1"], // tie → first run
    [[0x2001, 0, 1, 0, 1, 0, 1, 0], "2001:0:1:0:1:0:1:0"], // single zero groups are not compressed
    [[0, 0, 0, 0, 0, 0, 0, 1], "::1"],
    [[0xfe80, 0, 0, 0, 0, 0, 0, 0], "fe80::"],
    [[0xfe80, 0, 0, 0, 0x5254, 0xff, 0xfe12, 0x82e4], "fe80::5254:ff:fe12:82e4"],
  ])("compresses zero runs per RFC 5952: %j → %s", (groups, addr) => {
    expect(decodeProcAddress(procHex(groups))).toBe(addr);
  });

  it("never throws on 8- or 32-digit hex strings and yields a well-formed address", () => {
    fc.assert(
      fc.property(fc.oneof(fc.stringMatching(/^[0-9a-fA-F]{8}$/), fc.stringMatching(/^[0-9a-fA-F]{32}$/)), (hex) => {
        const out = decodeProcAddress(hex);
        if (hex.length === 8) expect(out).toMatch(/^\d{1,3}(\.\d{1,3}){3}$/);
        else expect(out).toMatch(/^[0-9a-f:.]+$/);
        expect(out).not.toContain("NaN");
        expect(out).not.toContain(":::");
      }),
    );
  });
});

const TCP = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:0CEA 00000000:0000 0A 00000000:00000000 00:00000000 00000000   116        0 23456 1 0000000000000000 100 0 0 10 0
   1: 00000000:0016 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 12345 1 0000000000000000 100 0 0 10 0
   2: 0F02000A:0016 0A02000A:D1C2 01 00000000:00000000 02:000A3B2D 00000000     0        0 99999 4 0000000000000000 20 4 31 10 -1
   3: garbage
`;

describe("parseSocketTable", () => {
  it("parses rows, skipping the header and malformed rows", () => {
    expect(parseSocketTable(TCP)).toEqual([
      { address: "127.0.0.1", port: 3306, state: TCP_LISTEN, uid: 116, inode: 23456 },
      { address: "0.0.0.0", port: 22, state: TCP_LISTEN, uid: 0, inode: 12345 },
      { address: "10.0.2.15", port: 22, state: 0x01, uid: 0, inode: 99999 },
    ]);
  });

  it("lets callers select listening sockets by state", () => {
    expect(parseSocketTable(TCP).filter((r) => r.state === TCP_LISTEN).map((r) => r.port)).toEqual([3306, 22]);
  });

  it("parses tcp6 and udp rows", () => {
    const tcp6 = `  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000001000000:1F90 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 4242 1 0000000000000000 100 0 0 10 0
   1: 0000000000000000FFFF00000100007F:0050 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4343 1 0000000000000000 100 0 0 10 0
`;
    expect(parseSocketTable(tcp6)).toEqual([
      { address: "::1", port: 8080, state: TCP_LISTEN, uid: 1000, inode: 4242 },
      { address: "::ffff:127.0.0.1", port: 80, state: TCP_LISTEN, uid: 0, inode: 4343 },
    ]);
    const udp = `   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops
  765: 3500007F:0035 00000000:0000 07 00000000:00000000 00:00000000 00000000   101        0 2048 2 0000000000000000 0
`;
    expect(parseSocketTable(udp)).toEqual([{ address: "127.0.0.53", port: 53, state: UDP_UNCONNECTED, uid: 101, inode: 2048 }]);
  });

  it("returns nothing for a header-only or empty table", () => {
    expect(parseSocketTable(TCP.split("\n")[0]!)).toEqual([]);
    expect(parseSocketTable("")).toEqual([]);
  });
});
