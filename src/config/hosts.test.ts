import { describe, expect, it } from "vitest";
import { StaticProvider } from "../adapters/inventory/static.ts";
import { ExecConfigSchema, InventoryConfigSchema, ProviderConfigSchema } from "./hosts.ts";

describe("inventory config", () => {
  it("refuses a backend named \"literal\" (policies see backend literal for hosts no backend lists), saying why", () => {
    const r = InventoryConfigSchema.safeParse({ providers: [{ kind: "static", name: "literal", hosts: [] }] });
    expect(r.success).toBe(false);
    expect(JSON.stringify(r.error?.issues)).toContain("reserved");
    expect(InventoryConfigSchema.safeParse({ providers: [{ kind: "static", name: "literals", hosts: [] }] }).success).toBe(true);
  });

  it("become: none | sudo per backend and per static host (the host's wins); anything else is refused naming the values", async () => {
    const cfg = ProviderConfigSchema.parse({ kind: "static", become: "sudo", hosts: [
      { name: "a", address: "10.0.0.1", user: "deploy" },
      { name: "b", address: "10.0.0.2", become: "none" },
    ] });
    if (cfg.kind !== "static") throw new Error("static expected");
    const hosts = await new StaticProvider(cfg).list();
    expect(hosts.map((h) => [h.name, h.ssh?.become])).toEqual([["a", "sudo"], ["b", "none"]]);
    for (const bad of [{ become: "root" }, { become: "sudo -S" }, { become: true }]) {
      const r = ProviderConfigSchema.safeParse({ kind: "static", hosts: [{ name: "c", address: "10.0.0.3", ...bad }] });
      expect(r.success).toBe(false);
      expect(JSON.stringify(r.error?.issues)).toMatch(/none.*sudo/);
    }
    expect(ProviderConfigSchema.safeParse({ kind: "ssh_config", become: "doas" }).success).toBe(false);
  });
});

describe("exec.accept_login_groups", () => {
  it("takes group names (default none) and refuses anything else, saying what a name may hold", () => {
    expect(ExecConfigSchema.parse({}).accept_login_groups).toEqual([]);
    expect(ExecConfigSchema.parse({ accept_login_groups: ["docker", "svc-sock"] }).accept_login_groups).toEqual(["docker", "svc-sock"]);
    for (const bad of ["two words", "", "x;y"]) {
      const r = ExecConfigSchema.safeParse({ accept_login_groups: [bad] });
      expect(r.success, bad).toBe(false);
      expect(JSON.stringify(r.error?.issues)).toContain("a group name (letters, digits, . _ @ -)");
    }
  });
});
