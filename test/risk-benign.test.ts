import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { testEngine } from "./support/risk-engine.ts";

/**
 * Everyday admin commands must stay allowed. Each command that is not allowed is a false positive; the
 * rate is printed and must stay at or below the budget (currently zero tolerated beyond the listed ones).
 */
const lines = readFileSync(new URL("./fixtures/benign-commands.txt", import.meta.url), "utf8")
  .split("\n")
  .filter((l) => l.trim() !== "" && !l.startsWith("# "));

/** Benign commands the engine deliberately does not allow, with the reason. */
const KNOWN_FALSE_POSITIVES: Readonly<Record<string, string>> = {};

describe("benign admin commands stay allowed", async () => {
  const engine = await testEngine();
  const misses: string[] = [];
  for (const line of lines) {
    it(line, () => {
      const r = engine.assess(line);
      if (r.decision !== "allow") misses.push(`${line} -> ${r.decision}/${r.risk_level} [${r.signals.map((s) => s.id).join(",")}]`);
      if (KNOWN_FALSE_POSITIVES[line] === undefined) expect(r.decision, JSON.stringify(r.signals)).toBe("allow");
    });
  }
  it("reports the false-positive rate", () => {
    process.stderr.write(`[risk benign] ${misses.length}/${lines.length} false positives (${((100 * misses.length) / lines.length).toFixed(1)}%)\n${misses.map((m) => "  " + m).join("\n")}\n`);
    expect(lines.length).toBeGreaterThan(100);
  });
});
