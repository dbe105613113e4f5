import { z } from "zod";

/**
 * Exposure groups (toolsets): feature flags for the model-facing tool surface. A tool belongs to zero or
 * more groups; `tools.enable` / `tools.disable` override group membership per tool.
 */
export const TOOLSETS = ["host", "logs", "packages", "systemd", "resource_api_fallback", "approval", "risk", "audit"] as const;
export type Toolset = (typeof TOOLSETS)[number];

const groups = z.object(Object.fromEntries(TOOLSETS.map((t) => [t, z.boolean().optional().describe(`Show the ${t} toolset (default on)`)])) as Record<Toolset, z.ZodOptional<z.ZodBoolean>>).strict();

/** The whole configuration file. Every object is strict: unknown keys are errors, not ignored. */
export const ConfigSchema = z.object({
  server: z.object({
    host: z.string().min(1).default("127.0.0.1").describe("Address the HTTP server binds to"),
    port: z.number().int().min(0).max(65535).default(48000).describe("TCP port of the HTTP server (0 picks a free one)"),
    token: z.string().min(16, "use at least 16 characters").optional().describe("Bearer token HTTP clients must send; required when host is not loopback (or HOSTGATE_HTTP_TOKEN)"),
    allowed_hosts: z.array(z.string().min(1)).default(() => []).describe("Extra Host header names accepted besides loopback ones"),
    allowed_origins: z.array(z.string().min(1)).default(() => []).describe("Extra Origin values accepted besides loopback ones; 'null' must be listed to be accepted"),
    max_body_bytes: z.number().int().min(1024).max(16 * 1024 * 1024).default(1024 * 1024).describe("Largest HTTP request body; larger bodies get 413"),
  }).strict().default(() => ({ host: "127.0.0.1", port: 48000, allowed_hosts: [], allowed_origins: [], max_body_bytes: 1024 * 1024 })),
  tools: z.object({
    exposure: z.enum(["all", "read_only"]).default("all").describe("read_only hides every tool that is not read-only"),
    groups: groups.default(() => ({})),
    enable: z.array(z.string().min(1)).default(() => []).describe("Tools shown even when all their groups are off (never past exposure: read_only)"),
    disable: z.array(z.string().min(1)).default(() => []).describe("Tools hidden whatever their groups say"),
  }).strict()
    .refine((t) => !t.enable.some((n) => t.disable.includes(n)), { error: "a tool cannot appear in both tools.enable and tools.disable" })
    .default(() => ({ exposure: "all" as const, groups: {}, enable: [], disable: [] })),
}).strict();

export type Config = z.infer<typeof ConfigSchema>;
