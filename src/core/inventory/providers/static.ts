import { z } from "zod";
import { defineProvider, nameField, tagField, timeoutOverride } from "./fields.ts";

/** One host of a `static` backend. */
export const StaticHostSchema = z.object({
  name: nameField.describe("Inventory name (what exec_on_host { host } accepts)"),
  address: z.string().min(1).max(255).describe("IP or DNS name to dial"),
  port: z.number().int().min(1).max(65535).default(22),
  user: z.string().min(1).max(64).optional().describe("Login user (default exec.user)"),
  become: z.enum(["none", "sudo"]).optional().describe("How approved changes get root on this host when the login is not root (default: the backend's become, else none)"),
  tags: z.array(tagField).max(32).default(() => []),
  meta: z.record(z.string().regex(/^[a-z][a-z0-9_]{0,31}$/), z.string().max(256)).default(() => ({})),
}).strict();

/** `static`: hosts listed in the config itself (adapters/inventory/static.ts). */
export const staticProvider = defineProvider({
  kind: "static",
  fields: { hosts: z.array(StaticHostSchema).max(100_000).describe("The hosts") },
  overrides: { ...timeoutOverride },
});
