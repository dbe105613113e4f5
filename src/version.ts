import pkg from "../package.json" with { type: "json" };

/** hostgate's version, from package.json (the bundle inlines it): `hostgate --version` and MCP serverInfo. */
export const VERSION: string = pkg.version;
