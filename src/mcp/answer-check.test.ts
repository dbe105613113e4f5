import { describe, expect, it } from "vitest";
import { checkAnswer } from "./answer-check.ts";
import { errorResult } from "./result.ts";
import { historyTool } from "./tools/history.ts";
import { directTool } from "./tools/direct.ts";

const entry = { seq: 1, time: "2026-01-01T00:00:00Z", kind: "plan", actor: { raw: "uid 1000" }, host: "local", transaction_id: null, action: null, status: null, detail: null, separation: null, approval: null };
const ok = (structured: Record<string, unknown>): { content: { type: "text"; text: string }[]; structuredContent: Record<string, unknown> } => ({ content: [{ type: "text", text: JSON.stringify(structured) }], structuredContent: structured });
const refusal = (r: ReturnType<typeof checkAnswer>): { code: string; message: string; hint: string } => (JSON.parse(r.content[0]!.text) as { error: { code: string; message: string; hint: string } }).error;

describe("checkAnswer: the front passes on only answers that match the outputSchema it listed", () => {
  it("passes a matching answer through unchanged", () => {
    const result = ok({ entries: [entry] });
    expect(checkAnswer(historyTool, result)).toBe(result);
  });

  it("refuses an answer that does not match with protocol_error naming the tool and what is wrong, nothing of it passed on", () => {
    const r = checkAnswer(historyTool, ok({ entries: [{ ...entry, seq: "one", secret: "from the daemon" }] }));
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toBeUndefined();
    expect(r.content).toHaveLength(1);
    const error = refusal(r);
    expect(error.code).toBe("protocol_error");
    expect(error.message).toContain("answer to history does not match the outputSchema");
    expect(error.message).toMatch(/seq/);
    expect(error.hint).toContain("one build");
    expect(r.content[0]!.text).not.toContain("from the daemon");
  });

  it("refuses a success without structuredContent, and passes an error result without it", () => {
    expect(refusal(checkAnswer(historyTool, { content: [{ type: "text", text: "{}" }] })).message).toContain("carries no structuredContent");
    const error = errorResult({ code: "unavailable", message: "down" });
    expect(checkAnswer(historyTool, error)).toBe(error);
  });

  it("checks a direct tool against the schema its descriptor listed", () => {
    const tool = directTool({ action: "GetThing", title: "Thing", description: "d", input_schema: { type: "object" }, output_schema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] }, access: "read_only", risk_level: "low", toolsets: [], host_derived: false })!;
    const good = ok({ n: 1 });
    expect(checkAnswer(tool, good)).toBe(good);
    expect(refusal(checkAnswer(tool, ok({ n: 1.5 }))).code).toBe("protocol_error");
  });
});
