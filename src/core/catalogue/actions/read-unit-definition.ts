import { z } from "zod";
import { defineReadOnlyAction } from "../action.ts";
import { parseUnitUri } from "../../systemd/uri.ts";
import { uriParam } from "./systemd-schemas.ts";

/**
 * ReadUnitDefinition (tool read_unit_definition, toolset resource_api_fallback): the unit file and its
 * drop-ins as text (like `systemctl cat`), secrets in Environment=/SetCredential= redacted. Accepts the base
 * URI (or its /definition form). Errors as ReadUnit.
 */
export const ReadUnitDefinition = defineReadOnlyAction({
  name: "ReadUnitDefinition",
  title: "Unit file",
  description: "A unit's file and drop-ins, when configuration matters.",
  params: z.strictObject({ uri: uriParam }),
  output: z.object({ fragment_path: z.string().nullable(), drop_in_paths: z.array(z.string()), text: z.string() }),
  risk_level: "low",
  access: "read_only",
  families: "all",
  min_role: "observer",
  needs: ["systemd"],
  toolsets: ["resource_api_fallback"],
  host_derived: true,
  async run(p, ctx) {
    const u = parseUnitUri(p.uri);
    const { redactions, ...definition } = await ctx.units.get(u.manager).getDefinition(u.unit);
    ctx.redacted?.(redactions);
    return definition;
  },
});
