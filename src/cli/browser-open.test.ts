import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { pruneRedirectPages, redirectPage, STALE_PAGE_MS, writeRedirectPage } from "./browser-open.ts";

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

  it("a new page removes this user's stale pages only: fresh ones, links, foreign names and directories holding other files stay", () => {
    const parent = mkdtempSync(join(tmpdir(), "hg-open-prune-"));
    try {
      const old = (Date.now() - STALE_PAGE_MS - 60_000) / 1000;
      const stale = dirname(writeRedirectPage("http://localhost:7478/login#hgl_a", { XDG_RUNTIME_DIR: parent }));
      const fresh = dirname(writeRedirectPage("http://localhost:7478/login#hgl_b", { XDG_RUNTIME_DIR: parent }));
      const crowded = join(parent, "hostgate-console-crowded");
      mkdirSync(crowded);
      writeFileSync(join(crowded, "keep.txt"), "x");
      const target = mkdtempSync(join(tmpdir(), "hg-open-target-"));
      writeFileSync(join(target, "open.html"), "x");
      symlinkSync(target, join(parent, "hostgate-console-link"));
      for (const d of [stale, crowded, target]) utimesSync(d, old, old);
      pruneRedirectPages(parent);
      expect(existsSync(stale)).toBe(false);
      expect(existsSync(fresh)).toBe(true);
      expect(existsSync(join(crowded, "keep.txt"))).toBe(true);
      expect(existsSync(join(target, "open.html")), "a link's target is never touched").toBe(true);
      rmSync(target, { recursive: true, force: true });
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });
});
