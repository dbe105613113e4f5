import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { validateEvalCorpus, validateEvalFile } from "../evals/validate.ts";
import type { EvalCorpus } from "../evals/validate.ts";

const corpus = JSON.parse(readFileSync(new URL("../evals/cases.json", import.meta.url), "utf8")) as EvalCorpus;

describe("evals corpus", () => {
  it("is valid and grounded in the mock backend", async () => {
    expect(await validateEvalFile()).toEqual([]);
  });

  it("catches ungrounded answers, forbidden text, wrong errors, mutating golden calls and budgets", async () => {
    const broken = structuredClone(corpus);
    const byId = (id: string) => broken.cases.find((c) => c.id === id)!;
    byId("discovery-timers").expect.answer_contains = ["nonexistent.timer"];
    byId("definition-limits").expect.answer_must_not_contain = ["LimitNOFILE"];
    byId("unsupported-device-type").golden[0]!.expect_error = "no_such_unit";
    byId("state-failed-units").golden = [{ tool: "restart_service", args: { unit: "myapp" } }];
    byId("efficiency-filtered-list").expect.max_result_bytes = 50;
    const problems = await validateEvalCorpus(broken);
    expect(problems.join("\n")).toMatch(/nonexistent\.timer.*not grounded/);
    expect(problems.join("\n")).toMatch(/forbidden "LimitNOFILE"/);
    expect(problems.join("\n")).toMatch(/failed with invalid_uri/);
    expect(problems.join("\n")).toMatch(/restart_service is not a direct read-only tool/);
    expect(problems.join("\n")).toMatch(/over max_result_bytes 50/);
  });

  it("rejects unknown keys and missing categories", async () => {
    expect((await validateEvalCorpus({ ...corpus, extra: 1 })).join()).toMatch(/schema/);
    const fewer = { ...corpus, cases: corpus.cases.filter((c) => c.category !== "definitions") };
    expect((await validateEvalCorpus(fewer)).join()).toMatch(/category definitions has 0 cases/);
  });
});
