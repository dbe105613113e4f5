import { describe, expect, it } from "vitest";
import { geminiFolderTrust } from "./gemini-trust.ts";

const on = { security: { folderTrust: { enabled: true } } };

describe("geminiFolderTrust", () => {
  it("Folder Trust off (the default, or a settings file without the key): no question of trust", () => {
    expect(geminiFolderTrust({}, { "/p": "DO_NOT_TRUST" }, "/p")).toEqual({ state: "off" });
    expect(geminiFolderTrust({ security: { folderTrust: { enabled: false } } }, {}, "/p")).toEqual({ state: "off" });
    expect(geminiFolderTrust("not an object", null, "/p")).toEqual({ state: "off" });
  });

  it("TRUST_FOLDER trusts the folder and everything below it, not a sibling with the same prefix", () => {
    const rules = { "/home/u/work": "TRUST_FOLDER" };
    expect(geminiFolderTrust(on, rules, "/home/u/work")).toMatchObject({ state: "trusted" });
    expect(geminiFolderTrust(on, rules, "/home/u/work/a/b")).toMatchObject({ state: "trusted" });
    expect(geminiFolderTrust(on, rules, "/home/u/workshop")).toEqual({ state: "undecided" });
  });

  it("TRUST_PARENT trusts the parent of the path named, and its other children", () => {
    expect(geminiFolderTrust(on, { "/home/u/work/proj": "TRUST_PARENT" }, "/home/u/work/other")).toMatchObject({ state: "trusted", rule: "/home/u/work/proj: TRUST_PARENT" });
  });

  it("DO_NOT_TRUST marks exactly that folder; a trusted parent wins over it (gemini-cli checks trusted roots first)", () => {
    expect(geminiFolderTrust(on, { "/p": "DO_NOT_TRUST" }, "/p")).toMatchObject({ state: "untrusted" });
    expect(geminiFolderTrust(on, { "/p": "DO_NOT_TRUST" }, "/p/sub")).toEqual({ state: "undecided" });
    expect(geminiFolderTrust(on, { "/p/sub": "DO_NOT_TRUST", "/p": "TRUST_FOLDER" }, "/p/sub")).toMatchObject({ state: "trusted" });
  });

  it("no rules file, or rules that are not a map: undecided", () => {
    expect(geminiFolderTrust(on, undefined, "/p")).toEqual({ state: "undecided" });
    expect(geminiFolderTrust(on, ["/p"], "/p")).toEqual({ state: "undecided" });
  });
});
