/**
 * A preview's text as the console shows it: a unified diff (WriteFile's preview) line by line with added,
 * removed, hunk and file-header lines marked (classes `add`, `del`, `hunk`, `file`), anything else as plain
 * lines. Pure; every line goes through core/console/html.ts `text`, so a diff cannot inject markup.
 */
import { h, type Raw } from "./html.ts";

/** The class of one line of a unified diff, or null for context and plain text. */
export function diffLineClass(line: string, inDiff: boolean): "add" | "del" | "hunk" | "file" | null {
  if (line.startsWith("+++ ") || line.startsWith("--- ")) return "file";
  if (line.startsWith("@@")) return "hunk";
  if (!inDiff) return null;
  if (line.startsWith("+")) return "add";
  if (line.startsWith("-")) return "del";
  return null;
}

/** Renders a preview text as a `<pre>` of lines, marking diff lines once a `@@` hunk header was seen. */
export function renderPreviewText(previewText: string): Raw {
  let inDiff = false;
  const lines = previewText.split("\n").map((line) => {
    if (line.startsWith("@@")) inDiff = true;
    const cls = diffLineClass(line, inDiff);
    return cls === null ? h`<span class="ln">${line}</span>\n` : h`<span class="ln ${cls}">${line}</span>\n`;
  });
  return h`<pre class="preview">${lines}</pre>`;
}
