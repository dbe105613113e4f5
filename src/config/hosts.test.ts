import { describe, expect, it } from "vitest";
import { InventoryConfigSchema } from "./hosts.ts";

describe("inventory config", () => {
  it("refuses a backend named \"literal\" (policies see backend literal for hosts no backend lists), saying why", () => {
    const r = InventoryConfigSchema.safeParse({ providers: [{ kind: "static", name: "literal", hosts: [] }] });
    expect(r.success).toBe(false);
    expect(JSON.stringify(r.error?.issues)).toContain("reserved");
    expect(InventoryConfigSchema.safeParse({ providers: [{ kind: "static", name: "literals", hosts: [] }] }).success).toBe(true);
  });
});
