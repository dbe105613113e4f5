import type { Preview } from "../catalogue/action.ts";
import { redactDeep } from "../redact.ts";

/**
 * The preview as the model sees it. The human at `hostgate approve` sees the exact preview; the model must not
 * use `plan` as a way to read files it could not read otherwise (a WriteFile diff shows the current content).
 * So in a unified diff only headers, hunk markers and the model's own added lines are kept; each run of current
 * content (context and removed lines) becomes one line saying how many lines the approver will see. Then every
 * string is redacted for secrets. An action whose preview holds host state the model may not read says what
 * the model sees in `preview.agent` (WriteFile: the intended state and a count only), used as is, redacted.
 * The preview_hash is always of the full preview.
 */
export function agentPreview(preview: Preview): Preview {
  if (preview.agent !== undefined) {
    const { summary, text, intended } = preview.agent;
    return redactDeep({ summary, text, ...(intended === undefined ? {} : { intended }), ...(preview.warnings ? { warnings: preview.warnings } : {}), ...(preview.confirm ? { confirm: preview.confirm } : {}) }).value;
  }
  const lines = preview.text.split("\n");
  const out: string[] = [];
  let inDiff = false;
  let hidden = 0;
  const flush = (): void => {
    if (hidden > 0) out.push(`  … ${hidden} line${hidden === 1 ? "" : "s"} of the current file, shown only to the approver`);
    hidden = 0;
  };
  for (const line of lines) {
    if (line.startsWith("--- ") || line.startsWith("+++ ") || line.startsWith("@@")) {
      flush();
      inDiff = true;
      out.push(line);
    } else if (inDiff && (line.startsWith("-") || line.startsWith(" ") || line.startsWith("\\"))) {
      hidden++;
    } else {
      flush();
      out.push(line);
    }
  }
  flush();
  return redactDeep({ ...preview, text: out.join("\n") }).value;
}
