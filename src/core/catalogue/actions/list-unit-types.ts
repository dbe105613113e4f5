import { z } from "zod";
import { defineReadOnlyAction } from "../action.ts";
import { SUPPORTED_UNIT_TYPES } from "../../systemd/unit-name.ts";
import type { SupportedUnitType } from "../../systemd/unit-name.ts";

const ABOUT: Record<SupportedUnitType, string> = {
  service: "a process or group of processes (daemons, oneshot jobs)",
  timer: "triggers another unit on a calendar or monotonic schedule",
  socket: "a listening socket that activates a service on traffic",
  target: "a synchronisation point grouping other units",
  mount: "a file-system mount point (name is the escaped path, / is -.mount)",
  path: "watches a file-system path and activates a unit on change",
};

/**
 * ListUnitTypes (tool list_unit_types, toolset `systemd`, not resource_api_fallback: it describes the
 * resource model rather than replacing a resource operation, so it stays useful when the harness reads
 * resources itself). Static data; no manager is contacted.
 */
export const ListUnitTypes = defineReadOnlyAction({
  name: "ListUnitTypes",
  title: "Unit types",
  description: "Unit types and their resource URI templates.",
  params: z.strictObject({}),
  output: z.object({
    types: z.array(z.object({ type: z.string(), about: z.string() })),
    uri_templates: z.array(z.string()),
  }),
  risk_level: "low",
  access: "read_only",
  families: "all",
  min_role: "observer",
  needs: ["systemd"],
  toolsets: ["systemd"],
  host_derived: false,
  run() {
    return Promise.resolve({
      types: SUPPORTED_UNIT_TYPES.map((type) => ({ type, about: ABOUT[type] })),
      uri_templates: ["systemd://system/unit/{type}/{name}", "systemd://user/{user}/unit/{type}/{name}"],
    });
  },
});
