import { describe, expect, it } from "vitest";
import { familyOf, parseOsRelease } from "./os-release.ts";

describe("parseOsRelease", () => {
  it("reads unquoted, double-quoted and single-quoted values", () => {
    const r = parseOsRelease(['ID=ubuntu', 'NAME="Ubuntu Linux"', "VERSION='22.04 LTS'"].join("\n"));
    expect(r).toEqual({ ID: "ubuntu", NAME: "Ubuntu Linux", VERSION: "22.04 LTS" });
  });

  it("decodes backslash escapes inside double quotes only", () => {
    const r = parseOsRelease(['A="say \\"hi\\" \\$HOME \\`x\\` \\\\ end"', "B='keep \\\" as is'"].join("\n"));
    expect(r.A).toBe('say "hi" $HOME `x` \\ end');
    expect(r.B).toBe('keep \\" as is');
  });

  it("skips comments, blank lines, malformed lines and lower-case keys", () => {
    const r = parseOsRelease(["# ID=commented", "", "   ", "no equals sign", "=value", "lower=x", "  ID=fedora  ", "VERSION_ID=39"].join("\n"));
    expect(r).toEqual({ ID: "fedora", VERSION_ID: "39" });
  });

  it("handles CRLF line endings and keeps '=' inside values", () => {
    const r = parseOsRelease('ID=debian\r\nHOME_URL="https://x.example/?a=b"\r\n');
    expect(r).toEqual({ ID: "debian", HOME_URL: "https://x.example/?a=b" });
  });

  it("keeps an unterminated quote as literal text", () => {
    expect(parseOsRelease('NAME="Broken').NAME).toBe('"Broken');
  });

  it("keeps an empty quoted value as empty string", () => {
    expect(parseOsRelease('VARIANT=""').VARIANT).toBe("");
  });
});

describe("familyOf", () => {
  it.each([
    [{ ID: "debian" }, "debian"],
    [{ ID: "ubuntu", ID_LIKE: "debian" }, "debian"],
    [{ ID: "ubuntu" }, "debian"],
    [{ ID: "rocky", ID_LIKE: "rhel centos fedora" }, "fedora"],
    [{ ID: "rocky" }, "fedora"],
    [{ ID: "almalinux" }, "fedora"],
    [{ ID: "arch" }, "arch"],
    [{ ID: "opensuse-tumbleweed", ID_LIKE: "opensuse suse" }, "suse"],
    [{ ID: "alpine" }, "alpine"],
    [{ ID: "Debian" }, "debian"],
  ] as const)("%o → %s", (osr, family) => {
    expect(familyOf(osr)).toBe(family);
  });

  it("falls back to ID_LIKE words in order when ID is unknown", () => {
    expect(familyOf({ ID: "mydistro", ID_LIKE: "something ubuntu" })).toBe("debian");
    expect(familyOf({ ID: "mydistro", ID_LIKE: "  rhel  " })).toBe("fedora");
  });

  it("prefers ID over ID_LIKE", () => {
    expect(familyOf({ ID: "arch", ID_LIKE: "debian" })).toBe("arch");
  });

  it("returns other for unknown or missing ids", () => {
    expect(familyOf({ ID: "gentoo" })).toBe("other");
    expect(familyOf({})).toBe("other");
    expect(familyOf({ ID: "", ID_LIKE: "" })).toBe("other");
  });

  it("does not mistake inherited object properties for families", () => {
    expect(familyOf({ ID: "constructor" })).toBe("other");
    expect(familyOf({ ID: "x", ID_LIKE: "__proto__ toString hasOwnProperty" })).toBe("other");
  });

  it("works end to end from parsed text", () => {
    expect(familyOf(parseOsRelease('ID="pop"\nID_LIKE="ubuntu debian"\n'))).toBe("debian");
  });
});
