import type { SFTPWrapper } from "ssh2";
import type { Become } from "../core/inventory/become.ts";
import type { UnitManagerSet } from "../ports/unit-manager.ts";
import type { OpenExec } from "./remote-exec.ts";
import { bridgeUnitManager, type RemoteSystemd } from "./systemd-bridge-ssh.ts";
import { SystemctlUnitManager } from "./systemd-systemctl-ssh.ts";
import { createUnavailableUnitManagers } from "./systemd-unavailable.ts";
import { createUnitManagerSet } from "./unit-manager-set.ts";

/**
 * The UnitManagerSet of a remote host, by what detectRemoteSystemd found there (issue 20): its own D-Bus through
 * systemd-stdio-bridge, else systemctl's output, else `unavailable` saying why (no user managers on remote hosts).
 * `found.detail` is the sentence doctor and describe show for the host.
 */
export function remoteUnitManagers(o: { open: OpenExec; sftp?: (() => Promise<SFTPWrapper>) | undefined; host: string; login: string; become: Become }, found: RemoteSystemd): UnitManagerSet {
  if (found.kind === "dbus_bridge") return createUnitManagerSet(bridgeUnitManager(o), new Map());
  if (found.kind === "systemctl") return createUnitManagerSet(new SystemctlUnitManager(o), new Map());
  return createUnavailableUnitManagers(found.detail);
}
