/**
 * Writes dist/prebuilt.json (see src/ipc/prebuilt.ts): run by scripts/build.mjs after bundling, with the
 * build's id as its only argument. Everything in it comes from the functions the sources use at run time
 * (describeAction, actionsFor, each fixed tool's schemas), so the bundle answers exactly what the sources
 * would, without computing it at start.
 */
import { writeFileSync } from "node:fs";
import { describeAction } from "../src/app/describe.ts";
import { DISTRO_FAMILIES } from "../src/core/catalogue/action.ts";
import { actionsFor, CATALOGUE } from "../src/core/catalogue/index.ts";
import type { Prebuilt } from "../src/ipc/prebuilt.ts";
import { FIXED_TOOLS } from "../src/mcp/server.ts";

const buildId = process.argv[2];
if (!buildId) throw new Error("usage: prebuild.ts <build id>");
const table: Prebuilt = {
  build_id: buildId,
  actions: Object.fromEntries(CATALOGUE.map((a) => [a.name, describeAction(a)])),
  families: Object.fromEntries(DISTRO_FAMILIES.map((f) => [f, actionsFor(f).map((a) => a.name)])),
  tools: Object.fromEntries(FIXED_TOOLS.map((t) => [t.name, { input: t.inputSchema, output: t.outputSchema }])),
};
writeFileSync(new URL("../dist/prebuilt.json", import.meta.url), `${JSON.stringify(table)}\n`);
