import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { wireJsonSchema } from "./json-schema.ts";
import { PlanInputSchema } from "./protocol.ts";

/** The compaction of wireJsonSchema (issue 14) must accept exactly what zod's own JSON Schema accepts. */
const ajv = new Ajv2020({ strict: false });
const sameVerdicts = (schema: z.ZodType, instances: unknown[]): void => {
  const raw = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  delete raw.$schema;
  const before = ajv.compile(raw);
  const after = ajv.compile(wireJsonSchema(schema, "input"));
  for (const x of instances) expect(after(x), JSON.stringify(x)).toBe(before(x));
};

describe("wireJsonSchema", () => {
  it("publishes plan flat (issue 22): no combinator; the schema admits what the zod schema admits, and the refinement refuses intent-and-steps or neither; the host rule is checked in code", () => {
    const s = wireJsonSchema(PlanInputSchema, "input");
    expect(Object.keys(s).filter((k) => ["oneOf", "anyOf", "allOf", "not"].includes(k))).toEqual([]);
    expect(s).toMatchObject({ type: "object", additionalProperties: false });
    expect(Object.keys(s.properties as object).sort()).toEqual(["host", "intent", "steps"]);
    const step = { action: "RestartService", params: { unit: "nginx" } };
    const published = ajv.compile(s);
    for (const ok of [{ intent: "restart nginx" }, { intent: "x", host: "local" }, { steps: [step] }, { steps: [step], host: "web1" }]) {
      expect(published(ok), JSON.stringify(ok)).toBe(true);
      expect(PlanInputSchema.safeParse(ok).success, JSON.stringify(ok)).toBe(true);
    }
    for (const bad of [{ intent: "" }, { intent: "x", extra: 1 }, { steps: [] }, { steps: [{ ...step, extra: 1 }] }, { steps: [step], intent: 1 }, null, "x"]) {
      expect(published(bad), JSON.stringify(bad)).toBe(false);
      expect(PlanInputSchema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
    // The host-name rule is checked in code (issue 22: one rule for every tool, published as a plain string like
    // the direct tools' host, for the context budget): the zod schema refuses, with the rule in words.
    const badHost = PlanInputSchema.safeParse({ intent: "x", host: "bad host" });
    expect(published({ intent: "x", host: "bad host" })).toBe(true);
    expect(badHost.error?.issues[0]?.message).toContain("letters, digits");
    const neither = PlanInputSchema.safeParse({ host: "local" });
    expect(neither.success).toBe(false);
    expect(neither.error?.issues[0]?.message).toContain('give either "intent"');
    const both = PlanInputSchema.safeParse({ intent: "x", steps: [step] });
    expect(both.error?.issues[0]?.message).toContain("not both");
  });

  it("leaves a union alone when an option has more than one key of its own", () => {
    const u = z.union([z.strictObject({ a: z.string(), b: z.string().optional() }), z.strictObject({ c: z.string() })]);
    expect(wireJsonSchema(u, "input").anyOf).toBeDefined();
    sameVerdicts(u, [{ a: "1" }, { a: "1", b: "2" }, { c: "1" }, { a: "1", c: "1" }, { b: "2" }, {}]);
  });

  it("drops only no-op keywords, never a property that happens to be named like one", () => {
    const o = z.strictObject({ propertyNames: z.string(), additionalProperties: z.record(z.string(), z.unknown()) });
    const s = wireJsonSchema(o, "input");
    expect(Object.keys(s.properties as object)).toEqual(["propertyNames", "additionalProperties"]);
    expect((s.properties as Record<string, unknown>).additionalProperties).toEqual({ type: "object" });
    sameVerdicts(o, [{ propertyNames: "a", additionalProperties: { x: 1 } }, { propertyNames: 1, additionalProperties: {} }, { propertyNames: "a", additionalProperties: [] }, { other: 1 }]);
  });
});
