import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { validateEvalCorpus, validateEvalFile } from "../evals/validate.ts";
import type { EvalCorpus } from "../evals/validate.ts";
import { z } from "zod";
import { checkReach, checkReachFile, type ReachCorpus } from "../evals/reach.ts";
import { defineReadOnlyAction } from "../src/core/catalogue/action.ts";
import { CATALOGUE } from "../src/core/catalogue/index.ts";

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

describe("reachability eval (issue 24, evals/reach.json): everyday requests within two calls of the default tools/list", () => {
  const reach = JSON.parse(readFileSync(new URL("../evals/reach.json", import.meta.url), "utf8")) as ReachCorpus;
  /** A read of a new toolset as a branch adds it: one file's worth of data, not listed by default. */
  const listUsers = defineReadOnlyAction({
    name: "ListUsers", title: "List users", description: "Accounts from /etc/passwd.", params: z.strictObject({ limit: z.number().int().min(1).optional() }), output: z.object({ users: z.array(z.string()) }),
    risk_level: "low", families: "all", min_role: "observer", toolsets: ["accounts"], host_derived: true, access: "read_only", run: () => Promise.resolve({ users: [] }),
  });

  it("holds at least 30 requests; every one whose action exists is reached in at most two calls, the rest wait for their owner branch", () => {
    const r = checkReachFile();
    expect(r.problems).toEqual([]);
    expect(reach.cases.length).toBeGreaterThanOrEqual(30);
    expect(r.reached.length + r.pending.length).toBe(reach.cases.length);
    for (const x of r.reached) expect(x.path.length, x.id).toBeLessThanOrEqual(2);
    expect(r.reached.find((x) => x.id === "reach-disk-full")!.path).toEqual([{ tool: "get_disk_usage", args: { mount_point: "/" } }]);
    expect(r.reached.find((x) => x.id === "reach-install-htop")!.path.map((p) => p.tool)).toEqual(["find_actions", "plan"]);
    // a change is found by its subject's toolset like a read (k24: mutating actions have toolsets)
    expect(r.reached.find((x) => x.id === "reach-create-timer")!.path[0]).toEqual({ tool: "find_actions", args: { toolset: "scheduling" } });
    expect(r.reached.find((x) => x.id === "reach-oom")!.path[1]).toEqual({ tool: "read_action", args: { action: "ReadKernelLog", args: { min_priority: "err" } } });
  });

  it("finds actions by words too: each case's query ranks its action in the first three; most prompts, typed as they are, find theirs (trial f24b)", () => {
    const r = checkReachFile();
    expect(reach.cases.filter((c) => (c as { query?: string }).query !== undefined).length).toBeGreaterThanOrEqual(8);
    expect(r.by_words.cases).toBe(r.reached.length);
    expect(r.by_words.found / r.by_words.cases).toBeGreaterThanOrEqual(0.85);
    const broken = structuredClone(reach);
    (broken.cases.find((c) => c.id === "reach-big-files") as { query?: string }).query = "zzzq";
    (broken.cases.find((c) => c.id === "reach-timers") as { query?: string }).query = "list";
    const problems = checkReach(broken).problems.join("\n");
    expect(problems).toMatch(/reach-big-files: find_actions \{ query: "zzzq" \} does not return FindLargeFiles/);
    expect(problems).toMatch(/reach-timers: find_actions \{ query: "list" \} (ranks ListTimers at \d+, below the first 3|does not return ListTimers)/);
  });

  it("derives the path from the catalogue: a new unlisted read becomes find_actions { toolset } → read_action", () => {
    const r = checkReach(reach, [...CATALOGUE, listUsers]);
    expect(r.problems).toEqual([]);
    expect(r.pending.map((p) => p.action)).not.toContain("ListUsers");
    expect(r.reached.find((x) => x.id === "reach-users")!.path).toEqual([{ tool: "find_actions", args: { toolset: "accounts" } }, { tool: "read_action", args: { action: "ListUsers", args: {} } }]);
  });

  it("catches args that do not fit, a wrong toolset, an unknown action without owner, and schema errors", () => {
    const broken = structuredClone(reach);
    const byId = (id: string) => broken.cases.find((c) => c.id === id)!;
    byId("reach-disk-full").args = { mount: "/" };
    byId("reach-users").toolset = "storage";
    byId("reach-create-timer").toolset = "accounts";
    byId("reach-gateway").action = "NoSuchAction";
    delete byId("reach-gateway").owner;
    const problems = checkReach(broken, [...CATALOGUE, listUsers]).problems.join("\n");
    expect(problems).toMatch(/reach-disk-full: args do not fit GetDiskUsage's params.*mount/);
    expect(problems).toMatch(/reach-users: ListUsers is not in toolset storage/);
    expect(problems).toMatch(/reach-create-timer: CreateTimer is not in toolset accounts/);
    expect(problems).toMatch(/reach-gateway: no action NoSuchAction in the catalogue, and no owner/);
    expect(checkReach({ ...reach, extra: 1 }).problems.join()).toMatch(/schema/);
  });
});
