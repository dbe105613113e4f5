import { describe, expect, it } from "vitest";
import { identify, type IdentityFacts } from "./identity.ts";
import type { HostRecord } from "./record.ts";

const rec = (name: string, backend: string, host: string, port: number, tags: string[] = [], provider: HostRecord["provider"] = "static"): HostRecord => ({
  name, primary_ip: host, provider, backend, meta: {}, tags, ssh: { host, port, identity_files: [], proxy_jump: [] },
});
const none: IdentityFacts = { addresses: new Map(), sharesKey: () => false };

describe("machine identity (issue 19; corpus T3-06)", () => {
  const card1 = rec("card1", "static", "127.0.0.1", 2200, ["pci", "prod"]);
  const direct = rec("card-direct", "ssh_config", "127.0.0.1", 2200, [], "ssh_config");

  it("an ssh_config alias with the same address and port is card1: its name, backend and tags", () => {
    const r = identify(direct, [card1, direct], none);
    expect(r).toEqual({ machine: { name: "card1", provider: "static", backend: "static", tags: ["pci", "prod"], address: "127.0.0.1", port: 2200, same_as: ["card-direct"], matched_by: ["address"] } });
  });
  it("card1 itself is the same machine whichever way it is asked", () => {
    expect(identify(card1, [card1, direct], none)).toMatchObject({ machine: { name: "card1", tags: ["pci", "prod"], same_as: ["card-direct"] } });
  });
  it("an unlisted IP spelling (0x7f000001) is card1 after normalisation", () => {
    const lit = rec("0x7f000001", "literal", "0x7f000001", 2200);
    expect(identify(lit, [card1], none)).toMatchObject({ machine: { name: "card1", backend: "static", address: "127.0.0.1", tags: ["pci", "prod"] } });
  });
  it("another port of the same address is another machine (unless a key says otherwise)", () => {
    const other = rec("other", "literal", "127.0.0.1", 22);
    expect(identify(other, [card1], none)).toMatchObject({ machine: { name: "other", backend: "literal", tags: [], same_as: [] } });
    expect(identify(other, [card1], { ...none, sharesKey: (h, p) => h === "127.0.0.1" && p === 2200 })).toMatchObject({ machine: { name: "card1", tags: ["pci", "prod"], matched_by: ["host_key"] } });
  });
  it("a name DNS resolves to card1's address is card1; without the DNS answer it is not", () => {
    const named = rec("card-dns", "second", "card.example", 2200);
    expect(identify(named, [card1, named], { ...none, addresses: new Map([["card.example", ["127.0.0.1"]]]) })).toMatchObject({ machine: { name: "card1", tags: ["pci", "prod"] } });
    expect(identify(named, [card1, named], none)).toMatchObject({ machine: { name: "card-dns", backend: "second", tags: [] } });
  });
  it("tagged entries of one machine that disagree collide (no silent merge)", () => {
    const lab = rec("card-lab", "second", "127.0.0.1", 2200, ["lab"]);
    const r = identify(direct, [card1, direct, lab], none);
    expect("collision" in r && r.collision.map((x) => x.name)).toEqual(["card1", "card-lab"]);
    const same = rec("card-again", "second", "127.0.0.1", 2200, ["prod", "pci"]);
    expect(identify(direct, [card1, direct, same], none)).toMatchObject({ machine: { name: "card1", same_as: ["card-direct", "card-again"] } });
  });
  it("a literal that matches no entry is literal with no tags; one that matches only untagged entries is that entry", () => {
    const lit = rec("10.9.9.9", "literal", "10.9.9.9", 22);
    expect(identify(lit, [card1], none)).toMatchObject({ machine: { name: "10.9.9.9", backend: "literal", tags: [] } });
    const kh = rec("10.9.9.9", "known_hosts", "10.9.9.9", 22, [], "known_hosts");
    expect(identify(rec("0x0a090909", "literal", "0x0a090909", 22), [card1, kh], none)).toMatchObject({ machine: { name: "10.9.9.9", backend: "known_hosts", tags: [] } });
  });
});
