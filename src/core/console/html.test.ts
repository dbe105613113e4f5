import { describe, expect, it } from "vitest";
import { renderPreviewText, diffLineClass } from "./diff.ts";
import { h, raw, text } from "./html.ts";

describe("console html", () => {
  it("escapes markup and makes control, bidi and invisible characters visible as the terminal screen does", () => {
    expect(text(`<a href="x" onclick='y'>&</a>`)).toBe("&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&lt;/a&gt;");
    expect(text("a\u202Eb\u2066c\x1b[2Jd\re\u200Bf")).toBe("a&lt;U+202E&gt;b&lt;U+2066&gt;c\\x1b[2Jd\\re&lt;U+200B&gt;f");
    expect(text("line\n\ttab")).toBe("line\n\ttab");
  });

  it("h escapes every interpolation unless it is raw markup; arrays join; null, undefined and false are empty", () => {
    expect(h`<p>${"<b>"}</p>`.html).toBe("<p>&lt;b&gt;</p>");
    expect(h`<p>${raw("<b>ok</b>")}</p>`.html).toBe("<p><b>ok</b></p>");
    expect(h`<ul>${["<x>", h`<li>${"y"}</li>`]}</ul>`.html).toBe("<ul>&lt;x&gt;<li>y</li></ul>");
    expect(h`${null}${undefined}${false}${0}`.html).toBe("0");
    expect(h`<i title="${'" onmouseover="alert(1)'}">`.html).toBe('<i title="&quot; onmouseover=&quot;alert(1)">');
  });

  it("marks the lines of a unified diff, and only after a hunk header", () => {
    expect(diffLineClass("+++ b/x", false)).toBe("file");
    expect(diffLineClass("@@ -1 +1 @@", false)).toBe("hunk");
    expect(diffLineClass("+added", false)).toBeNull();
    expect(diffLineClass("+added", true)).toBe("add");
    expect(diffLineClass("-gone", true)).toBe("del");
    const html = renderPreviewText("Replace /x\n+not a diff yet\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old <b>\n+new\u202E\n same").html;
    expect(html).toContain('<span class="ln">+not a diff yet</span>');
    expect(html).toContain('<span class="ln del">-old &lt;b&gt;</span>');
    expect(html).toContain('<span class="ln add">+new&lt;U+202E&gt;</span>');
    expect(html).toContain('<span class="ln"> same</span>');
  });
});
