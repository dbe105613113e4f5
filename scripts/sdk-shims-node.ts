// The MCP SDK's Node "_shims" module for hostgate's bundle (see scripts/build.mjs): the SDK's own shim imports
// Ajv (≈ 280 KB, evaluated at start, ≈ 10 ms) for the default JSON Schema validator, which only elicitation
// uses and hostgate never requests. This one offers the SDK's lighter Cloudflare validator under the same name
// (the SDK's browser and workerd shims do the same), so a validator still exists if one is ever asked for.
export { CfWorkerJsonSchemaValidator as DefaultJsonSchemaValidator } from "@modelcontextprotocol/server/validators/cf-worker";
export { default as process } from "node:process";
