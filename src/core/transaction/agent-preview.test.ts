import { describe, expect, it } from "vitest";
import { agentPreview } from "./agent-preview.ts";

describe("agentPreview", () => {
  it("hides the current file's lines of a diff and keeps the model's own added lines", () => {
    const text = "Replace /root/.aws/credentials: 80 → 6 bytes\n\n--- a/root/.aws/credentials\n+++ b/root/.aws/credentials\n@@ -1,3 +1,1 @@\n-[default]\n-aws_secret_access_key = wJalrXUtnFEMI\n context line\n+hello\n";
    const p = agentPreview({ summary: "Replace", text });
    expect(p.text).not.toContain("wJalrXUtnFEMI");
    expect(p.text).not.toContain("context line");
    expect(p.text).toContain("+hello");
    expect(p.text).toContain("3 lines of the current file, shown only to the approver");
    expect(p.text).toContain("Replace /root/.aws/credentials");
  });
  it("leaves previews without a diff alone, apart from redaction", () => {
    const p = agentPreview({ summary: "restart nginx.service", text: "restart nginx.service: active (running) → restarted\n- a dash line outside a diff" });
    expect(p.text).toBe("restart nginx.service: active (running) → restarted\n- a dash line outside a diff");
  });
});
