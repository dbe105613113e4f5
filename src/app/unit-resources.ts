/**
 * Daemon-side use cases behind the MCP unit resources. The MCP front maps these onto resources/list,
 * resources/templates/list and resources/read; nothing here knows the SDK.
 */
import { HostgateError } from "../core/errors.ts";
import { SUPPORTED_UNIT_TYPES } from "../core/systemd/unit-name.ts";
import type { SupportedUnitType } from "../core/systemd/unit-name.ts";
import { formatUnitUri, parseUnitUri } from "../core/systemd/uri.ts";
import type { ManagerRef } from "../core/systemd/uri.ts";
import type { UnitManager, UnitManagerSet } from "../ports/unit-manager.ts";
import type { ResourceProvider } from "./resources.ts";

/** One concrete unit resource for resources/list. `title` is the unit Description (host-derived). */
export interface UnitResource {
  uri: string;
  name: string;
  title?: string;
  mimeType: "application/json";
  description: string;
}

/** One URI template for resources/templates/list. */
export interface UnitResourceTemplate {
  uriTemplate: string;
  name: string;
  title: string;
  description: string;
  mimeType: string;
}

/** resources/read contents: JSON of the compact state, or the definition text. */
export interface UnitResourceContents {
  uri: string;
  mimeType: "application/json" | "text/plain";
  text: string;
}

/** The unit URI templates: local system and user managers, and system managers of inventory hosts. */
export const unitResourceTemplates: readonly UnitResourceTemplate[] = [
  {
    uriTemplate: "systemd://system/unit/{type}/{name}", name: "system-unit", title: "System unit state", mimeType: "application/json",
    description: `Compact runtime state of a system-manager unit. {type}: ${SUPPORTED_UNIT_TYPES.join(", ")}; {name}: unit name without the .type suffix, percent-encoded (\\ as %5C), e.g. systemd://system/unit/service/nginx, systemd://system/unit/mount/- for -.mount.`,
  },
  {
    uriTemplate: "systemd://system/unit/{type}/{name}/definition", name: "system-unit-definition", title: "System unit definition", mimeType: "text/plain",
    description: "Unit file and drop-ins of a system-manager unit as text, each preceded by '# <path>'; secrets redacted.",
  },
  {
    uriTemplate: "systemd://host/{host}/system/unit/{type}/{name}", name: "host-system-unit", title: "System unit state on a host", mimeType: "application/json",
    description: "The same on an inventory host ({host}: a search_hosts name); reading it needs a policy permit for that host (docs/hosts.md). Append /definition for the unit file.",
  },
  {
    uriTemplate: "systemd://user/{user}/unit/{type}/{name}", name: "user-unit", title: "User unit state", mimeType: "application/json",
    description: "Compact runtime state of a unit of {user}'s manager (login name or uid); only represented user managers answer.",
  },
  {
    uriTemplate: "systemd://user/{user}/unit/{type}/{name}/definition", name: "user-unit-definition", title: "User unit definition", mimeType: "text/plain",
    description: "Unit file and drop-ins of a unit of {user}'s manager as text.",
  },
];

/** Options for {@link listUnitResources}. */
export interface ListUnitResourcesOptions {
  /** Restrict to these types; default all supported types. */
  types?: readonly SupportedUnitType[];
  /**
   * Called when a user manager cannot be listed; that manager is then skipped so one unreachable user bus
   * does not hide the others. A system-manager failure is thrown.
   */
  onManagerError?: (ref: ManagerRef, err: HostgateError) => void;
}

async function listOne(m: UnitManager, types: readonly SupportedUnitType[]): Promise<UnitResource[]> {
  const rows = await m.listUnits({ types });
  const out: UnitResource[] = [];
  for (const r of rows) {
    let uri: string;
    try {
      uri = formatUnitUri(m.ref, r.unit);
    } catch {
      continue;
    }
    out.push({
      uri, name: m.ref.scope === "system" ? r.unit : `${m.ref.user}/${r.unit}`, ...(r.description ? { title: r.description } : {}),
      mimeType: "application/json", description: `${r.active_state} (${r.sub_state}), ${r.load_state}`,
    });
  }
  return out;
}

/**
 * Concrete unit resources across the system manager and every represented user manager, with
 * `systemctl list-units --all` semantics restricted to the supported types; system first, then users in
 * name order, each sorted by unit name. Throws the system manager's error (backend_error …), except
 * `unavailable` (no systemd on this host, no backend configured): then no unit resource is offered, an
 * empty list, and reading one says why.
 */
export async function listUnitResources(units: UnitManagerSet, opts: ListUnitResourcesOptions = {}): Promise<UnitResource[]> {
  const types = opts.types ?? SUPPORTED_UNIT_TYPES;
  let out: UnitResource[];
  try {
    out = await listOne(units.system, types);
  } catch (e) {
    if (e instanceof HostgateError && e.code === "unavailable") return [];
    throw e;
  }
  for (const user of units.users) {
    const m = units.user(user);
    try {
      out.push(...(await listOne(m, types)));
    } catch (e) {
      const err = e instanceof HostgateError ? e : new HostgateError("backend_error", String(e));
      opts.onManagerError?.(m.ref, err);
    }
  }
  return out;
}

/**
 * Reads one unit resource: the compact state as compact JSON for a base URI, the definition text for a
 * `/definition` URI. Errors: invalid_uri, invalid_unit_name, no_such_unit, user_manager_unavailable,
 * backend_error.
 */
export async function readUnitResource(uri: string, units: UnitManagerSet): Promise<UnitResourceContents> {
  const u = parseUnitUri(uri);
  const m = units.get(u.manager);
  if (u.definition) {
    const d = await m.getDefinition(u.unit);
    return { uri, mimeType: "text/plain", text: d.text };
  }
  return { uri, mimeType: "application/json", text: JSON.stringify(await m.getUnit(u.unit)) };
}

/** The `systemd://` resource provider over a host's unit managers (app/resources.ts). */
export function systemdResourceProvider(units: UnitManagerSet): ResourceProvider {
  return {
    scheme: "systemd",
    list: () => listUnitResources(units),
    templates: () => unitResourceTemplates,
    read: (uri) => readUnitResource(uri, units),
  };
}
