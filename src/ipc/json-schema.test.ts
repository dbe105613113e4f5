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
  it("advertises plan's intent-or-steps union as one closed object with oneOf, accepting exactly the same inputs", () => {
    const s = wireJsonSchema(PlanInputSchema, "input");
    expect(s).toMatchObject({ type: "object", oneOf: [{ required: ["intent"] }, { required: ["steps"] }], additionalProperties: false });
    expect(Object.keys(s.properties as object).sort()).toEqual(["host", "intent", "steps"]);
    const step = { action: "RestartService", params: { unit: "nginx" } };
    sameVerdicts(PlanInputSchema, [
      {}, { intent: "restart nginx" }, { intent: "x", host: "local" }, { steps: [step] }, { steps: [step], host: "web1" },
      { intent: "x", steps: [step] }, { host: "local" }, { intent: "" }, { intent: "x", extra: 1 }, { steps: [] },
      { steps: [{ ...step, extra: 1 }] }, { intent: "x", host: "bad host" }, { steps: [step], intent: 1 }, null, "x",
    ]);
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
