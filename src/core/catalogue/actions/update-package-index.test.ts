import { describe, expect, it } from "vitest";
import { parseIndexTargets } from "./update-package-index.ts";

describe("parseIndexTargets", () => {
  it("deduplicates sources across index types and keeps file paths", () => {
    const text = [
      "deb\thttp://deb.debian.org/debian/\tbookworm\tmain\t/var/lib/apt/lists/a_Packages.lz4",
      "deb\thttp://deb.debian.org/debian/\tbookworm\tmain\t/var/lib/apt/lists/a_Translation-en",
      "deb\thttp://deb.debian.org/debian-security/\tbookworm-security\tmain\t/var/lib/apt/lists/b_Packages.lz4",
      "",
    ].join("\n");
    const r = parseIndexTargets(text);
    expect(r.sources).toEqual([
      { type: "deb", uri: "http://deb.debian.org/debian/", suite: "bookworm", component: "main" },
      { type: "deb", uri: "http://deb.debian.org/debian-security/", suite: "bookworm-security", component: "main" },
    ]);
    expect(r.files).toHaveLength(3);
  });

  it("keeps flat repositories (empty component)", () => {
    expect(parseIndexTargets("deb\thttp://x/repo/\t./\t\t/l/x").sources).toEqual([{ type: "deb", uri: "http://x/repo/", suite: "./", component: "" }]);
  });
});
