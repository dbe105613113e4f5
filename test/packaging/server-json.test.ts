/**
 * The MCP registry entry (issue 25): server.json validates against the vendored registry schema
 * (schemas/server.schema.json), names this package at this version, and the command it names serves MCP over stdio.
 * (Re-created: the first version lived under test/dist/, which .gitignore's old `dist/` rule kept out of git.)
 */
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import AjvModule from "ajv";
import addFormatsModule from "ajv-formats";
import { describe, expect, it } from "vitest";
import { HOSTGATE_BIN } from "../helpers/hostgate.ts";
import { isolatedEnv } from "../helpers/isolated-env.ts";

// The registry schema is draft-07: Ajv's default class.
const Ajv = AjvModule as unknown as typeof AjvModule.default;
const addFormats = addFormatsModule as unknown as (ajv: InstanceType<typeof Ajv>) => InstanceType<typeof Ajv>;
interface ServerPackage { registryType: string; identifier: string; version: string; transport: { type: string }; packageArguments: { value: string }[] }
const read = (p: string): Record<string, unknown> => JSON.parse(readFileSync(new URL(`../../${p}`, import.meta.url), "utf8")) as Record<string, unknown>;
const server = read("server.json") as Record<string, unknown> & { packages: ServerPackage[] };
const pkg = read("package.json");
const npmPackage = (): ServerPackage => server.packages.find((p) => p.registryType === "npm")!;

describe("server.json (MCP registry entry)", () => {
  it("validates against the vendored schema it names", () => {
    const schema = read("schemas/server.schema.json");
    expect(server.$schema).toBe(schema.$id ?? server.$schema);
    const validate = addFormats(new Ajv({ strict: false, allErrors: true })).compile(schema);
    expect(validate(server), JSON.stringify(validate.errors)).toBe(true);
  });

  it("names this package, at package.json's version, and its mcpName", () => {
    expect(server.version).toBe(pkg.version);
    expect(server.name).toBe(pkg.mcpName);
    expect(npmPackage()).toMatchObject({ identifier: pkg.name, version: pkg.version, transport: { type: "stdio" } });
  });

  it("an invalid entry is refused by the same schema (the check can fail)", () => {
    const validate = addFormats(new Ajv({ strict: false, allErrors: true })).compile(read("schemas/server.schema.json"));
    expect(validate({ ...server, name: "no slash", version: 7 })).toBe(false);
  });

  it("the stdio command it names (hostgate + its packageArguments) answers initialize and lists tools", async () => {
    const args = npmPackage().packageArguments.map((a) => a.value);
    const transport = new StdioClientTransport({ command: process.execPath, args: [HOSTGATE_BIN, ...args], env: { ...process.env, ...isolatedEnv("server-json") } as Record<string, string>, stderr: "ignore" });
    const client = new Client({ name: "registry-check", version: "1" });
    await client.connect(transport);
    try {
      expect(client.getServerVersion()?.name).toBe("hostgate");
      expect((await client.listTools()).tools.map((t) => t.name)).toContain("plan");
    } finally {
      await client.close();
    }
  }, 60_000);
});
