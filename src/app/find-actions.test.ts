import { describe, expect, it } from "vitest";
import { CATALOGUE } from "../core/catalogue/index.ts";
import { queryTerms, rankByQuery, stem } from "../core/catalogue/search.ts";
import { ACTION_TOOLSETS } from "../core/toolsets.ts";
import { FindActionsResultSchema } from "../ipc/find-actions.ts";
import { describeAction } from "./describe.ts";
import { DEFAULT_EXPOSURE } from "./exposure.ts";
import { findActions, QUERY_LIMIT } from "./find-actions.ts";

/** Issue 24 (trial f24b finding 1 and 3): find_actions' word search over the real catalogue, and availability marks. */
const described = CATALOGUE.map(describeAction);
const names = (query: string): string[] => findActions(described, DEFAULT_EXPOSURE, { query }).actions.map((a) => a.action);

describe("find_actions query: words, synonyms, ranking", () => {
  it("stems plurals and endings, and widens a word by its synonym group", () => {
    expect(["timers", "largest", "expiring", "errors", "routes", "processes", "access", "dns"].map(stem)).toEqual(["timer", "larg", "expir", "error", "rout", "process", "access", "dns"]);
    const [largest] = queryTerms("the largest");
    expect(largest!.word).toBe("largest");
    expect(largest!.terms).toEqual(expect.arrayContaining(["larg", "big", "large"]));
    expect(queryTerms("show me the")).toEqual([]);
  });

  it("each request the trial found empty now answers, the fitting action first (any word may match)", () => {
    expect(names("timers cron").slice(0, 2).sort()).toEqual(["ListCronJobs", "ListTimers"]);
    expect(names("largest files")[0]).toBe("FindLargeFiles");
    expect(names("largest")).toEqual(expect.arrayContaining(["GetLargestDirectories", "FindLargeFiles"]));
    expect(names("certificates expiring")[0]).toBe("ListCertificates");
    expect(names("certs")[0]).toBe("ListCertificates");
    expect(names("kernel log errors")[0]).toBe("ReadKernelLog");
    expect(names("routes dns")).toEqual(expect.arrayContaining(["ListRoutes", "GetDnsConfig"]));
    expect(names("who is logged in")[0]).toBe("ListLoginSessions");
    expect(names("iptables")).toContain("GetFirewallRuleset");
    expect(names("resolver")).toContain("GetDnsConfig");
  });

  it("ranks by how many words match, then by words in the name or title", () => {
    const ranked = rankByQuery(["a", "b", "c"], "swap memory", (x) => ({
      a: { action: "GetLoad", tool: "get_load", title: "Load", description: "memory pressure", toolsets: [] },
      b: { action: "ListSwap", tool: "list_swap", title: "Swap", description: "swap areas and memory", toolsets: [] },
      c: { action: "Other", tool: "other", title: "Other", description: "nothing", toolsets: [] },
    })[x]!);
    expect(ranked).toEqual(["b", "a"]);
  });

  it("a query answers at most QUERY_LIMIT actions and says how many more matched", () => {
    const r = findActions(described, DEFAULT_EXPOSURE, { query: "add ssh key" });
    expect(r.actions.length).toBe(QUERY_LIMIT);
    expect(r.actions[0]!.action).toBe("AddAuthorizedKey");
    expect(r.note).toMatch(/^\d+ more actions match fewer of the words/);
    expect(findActions(described, DEFAULT_EXPOSURE, { query: "swap" }).note).toBeUndefined();
  });

  it("an empty answer says what to try: other words, or a toolset by name", () => {
    const r = findActions(described, DEFAULT_EXPOSURE, { query: "zzzq qqqz" });
    expect(r.actions).toEqual([]);
    expect(r.note).toMatch(/No action matches any word of "zzzq qqqz"\. Try other words .* find_actions \{ toolset \} with one of: host, logs/);
    const none = findActions(described, DEFAULT_EXPOSURE, { toolset: "time", access: "read_only", actions: ["ListUsers"] });
    expect(none.actions).toEqual([]);
    expect(none.note).toMatch(/No offered action fits these filters\. Drop a filter/);
  });
});

describe("find_actions answer shape", () => {
  it("names only toolsets its toolset filter accepts (no resource_api_fallback), in counts and per action", () => {
    const r = findActions(described, DEFAULT_EXPOSURE, {});
    expect(FindActionsResultSchema.safeParse(r).success).toBe(true);
    expect(Object.keys(r.toolsets).every((g) => (ACTION_TOOLSETS as readonly string[]).includes(g)), Object.keys(r.toolsets).join()).toBe(true);
    for (const a of r.actions) for (const g of a.toolsets) expect(ACTION_TOOLSETS, a.action).toContain(g);
    // the resource_api_fallback reads stay findable by words
    expect(names("units list")).toContain("ListUnits");
  });

  it("marks actions the host cannot run (available: false, reason) instead of hiding them", () => {
    const r = findActions(described, DEFAULT_EXPOSURE, { toolset: "systemd" }, { MaskUnit: "no systemd", ListFailedUnits: "no systemd" });
    const by = new Map(r.actions.map((a) => [a.action, a]));
    expect(by.get("MaskUnit")).toMatchObject({ available: false, reason: "cannot run on this host: no systemd", call: "plan" });
    expect(by.get("ListFailedUnits")).toMatchObject({ available: false, reason: "cannot run on this host: no systemd" });
    expect(by.get("RestartService")).not.toHaveProperty("available");
    expect(by.get("RestartService")).not.toHaveProperty("reason");
  });
});
