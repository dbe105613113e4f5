import { describe, expect, it } from "vitest";
import { parseStanza } from "./get-package-info.ts";

describe("parseStanza", () => {
  it("parses dpkg status with indented continuation lines", () => {
    const text = [
      "Package: bash",
      "Status: install ok installed",
      "Installed-Size: 7164",
      "Version: 5.1-6ubuntu1",
      "Description: GNU Bourne Again SHell",
      " Bash is an sh-compatible command language interpreter.",
      " .",
      " It is intended to conform to the IEEE POSIX standard.",
      "Homepage: http://tiswww.case.edu/php/chet/bash/bashtop.html",
      "",
    ].join("\n");
    const s = parseStanza(text);
    expect(s.Package).toBe("bash");
    expect(s.Status).toBe("install ok installed");
    expect(s["Installed-Size"]).toBe("7164");
    expect(s.Description).toBe("GNU Bourne Again SHell\nBash is an sh-compatible command language interpreter.\n.\nIt is intended to conform to the IEEE POSIX standard.");
    expect(s.Homepage).toBe("http://tiswww.case.edu/php/chet/bash/bashtop.html");
  });

  it("keeps ':' inside values", () => {
    expect(parseStanza("Homepage: https://example.org:8443/x\nDepends: libc6 (>= 2:1.0)").Homepage).toBe("https://example.org:8443/x");
  });

  it("stops at the first blank line after content (only the first stanza) and skips leading blanks", () => {
    const s = parseStanza("\n\nPackage: a\nVersion: 1\n\nPackage: b\nVersion: 2\n");
    expect(s).toEqual({ Package: "a", Version: "1" });
  });

  it("parses rpm -qi padded keys and its unindented Description body", () => {
    const text = [
      "Name        : bash",
      "Version     : 5.2.15",
      "Release     : 3.fc38",
      "Architecture: x86_64",
      "Size        : 8186105",
      "Build Date  : Wed 19 Jul 2023 12:00:00 AM UTC",
      "Summary     : The GNU Bourne Again shell",
      "Description :",
      "The GNU Bourne Again shell (Bash) is a shell or command language",
      "interpreter that is compatible with the Bourne shell (sh).",
      "",
    ].join("\n");
    const s = parseStanza(text);
    expect(s).toMatchObject({ Name: "bash", Version: "5.2.15", Release: "3.fc38", Architecture: "x86_64", Size: "8186105", Summary: "The GNU Bourne Again shell" });
    expect(s["Build Date"]).toBe("Wed 19 Jul 2023 12:00:00 AM UTC");
    expect(s.Description).toBe("The GNU Bourne Again shell (Bash) is a shell or command language\ninterpreter that is compatible with the Bourne shell (sh).");
  });

  it("ignores continuation lines before any key and returns {} for empty input", () => {
    expect(parseStanza("  orphan\nPackage: x")).toEqual({ Package: "x" });
    expect(parseStanza("")).toEqual({});
  });
});
