/**
 * The systemd catalogue entries. Read-only: ListUnits, ReadUnit, ReadUnitDefinition (toolset
 * resource_api_fallback), ListUnitTypes, GetServiceStatus, ListFailedUnits (toolset systemd). Mutating
 * (plan/execute only, never direct tools): StartService, StopService, RestartService, ReloadService,
 * EnableService, DisableService, MaskUnit, UnmaskUnit, DaemonReload, SetUnitResourceLimits (toolset systemd).
 */
import type { Action } from "../action.ts";
import { DisableService } from "./disable-service.ts";
import { EnableService } from "./enable-service.ts";
import { GetServiceStatus } from "./get-service-status.ts";
import { ListFailedUnits } from "./list-failed-units.ts";
import { ListUnitTypes } from "./list-unit-types.ts";
import { ListUnits } from "./list-units.ts";
import { ReadUnitDefinition } from "./read-unit-definition.ts";
import { ReadUnit } from "./read-unit.ts";
import { ReloadService } from "./reload-service.ts";
import { RestartService } from "./restart-service.ts";
import { StartService } from "./start-service.ts";
import { StopService } from "./stop-service.ts";
import { MaskUnit, UnmaskUnit } from "./mask-unit.ts";
import { DaemonReload } from "./daemon-reload.ts";
import { SetUnitResourceLimits } from "./set-unit-resource-limits.ts";

export { DaemonReload, MaskUnit, SetUnitResourceLimits, UnmaskUnit };
export { DisableService, EnableService, GetServiceStatus, ListFailedUnits, ListUnitTypes, ListUnits, ReadUnit, ReadUnitDefinition, ReloadService, RestartService, StartService, StopService };

/** All systemd actions, read-only first. */
export const systemdActions: readonly Action[] = [
  ListUnits, ReadUnit, ReadUnitDefinition, ListUnitTypes, GetServiceStatus, ListFailedUnits,
  StartService, StopService, RestartService, ReloadService, EnableService, DisableService,
  MaskUnit, UnmaskUnit, DaemonReload, SetUnitResourceLimits,
];
