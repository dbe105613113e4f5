import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { redirectPage, writeRedirectPage } from "./browser-open.ts";

describe("console link redirect page (issue 23)", () => {
  it("escapes the URL in the refresh and the link", () => {
    const html = redirectPage('http://localhost:1/login#hgl_a"><script>x</script>');
    expect(html).not.toContain("<script>");
    expect(html).toContain('content="0;url=http://localhost:1/login#hgl_a&#34;&#62;&#60;script&#62;x&#60;/script&#62;"');
  });

  it("writes a 0600 file in a fresh 0700 directory under XDG_RUNTIME_DIR, else the temp directory", () => {
    const runtime = mkdtempSync(join(tmpdir(), "hg-open-"));
    try {
      const a = writeRedirectPage("http://localhost:1/enroll#hgl_x", { XDG_RUNTIME_DIR: runtime });
      const b = writeRedirectPage("http://localhost:1/enroll#hgl_y", { XDG_RUNTIME_DIR: runtime });
      expect(dirname(dirname(a))).toBe(runtime);
      expect(dirname(a)).not.toBe(dirname(b));
      expect(statSync(a).mode & 0o777).toBe(0o600);
      expect(statSync(dirname(a)).mode & 0o777).toBe(0o700);
      expect(readFileSync(a, "utf8")).toContain("hgl_x");
      const fallback = writeRedirectPage("http://localhost:1/login#hgl_z", { XDG_RUNTIME_DIR: join(runtime, "missing") });
      expect(dirname(dirname(fallback))).toBe(tmpdir());
      rmSync(dirname(fallback), { recursive: true });
    } finally {
      rmSync(runtime, { recursive: true, force: true });
    }
  });
});
