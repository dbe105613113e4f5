import { describe, expect, it } from "vitest";
import { geminiFolderTrust } from "./gemini-trust.ts";

const on = { security: { folderTrust: { enabled: true } } };

describe("geminiFolderTrust", () => {
  it("Folder Trust off only when settings say enabled: false; no key means on (gemini-cli's default, issue 25)", () => {
    expect(geminiFolderTrust({ security: { folderTrust: { enabled: false } } }, { "/p": "DO_NOT_TRUST" }, "/p")).toEqual({ state: "off" });
    expect(geminiFolderTrust({}, {}, "/p")).toEqual({ state: "undecided" });
    expect(geminiFolderTrust({}, { "/p": "DO_NOT_TRUST" }, "/p")).toMatchObject({ state: "untrusted" });
    expect(geminiFolderTrust("not an object", null, "/p")).toEqual({ state: "undecided" });
  });

  it("Gemini CLI's environment decides before any rule: GEMINI_CLI_TRUST_WORKSPACE (true/false), GEMINI_RESTRICTED_MODE", () => {
    expect(geminiFolderTrust(on, {}, "/p", { GEMINI_CLI_TRUST_WORKSPACE: "true" })).toEqual({ state: "trusted", rule: "GEMINI_CLI_TRUST_WORKSPACE=true" });
    expect(geminiFolderTrust(on, { "/p": "TRUST_FOLDER" }, "/p", { GEMINI_CLI_TRUST_WORKSPACE: "false" })).toMatchObject({ state: "untrusted" });
    expect(geminiFolderTrust(on, { "/p": "TRUST_FOLDER" }, "/p", { GEMINI_RESTRICTED_MODE: "true", GEMINI_CLI_TRUST_WORKSPACE: "true" })).toMatchObject({ state: "untrusted" });
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
