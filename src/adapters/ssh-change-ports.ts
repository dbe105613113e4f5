import type { Become } from "../core/inventory/become.ts";
import type { UnitManagerSet } from "../ports/unit-manager.ts";
import type { SshSession } from "./exec-ssh/session.ts";
import { SshHostMutator } from "./host-mutator-ssh.ts";
import { sessionExecOpener } from "./remote-exec.ts";
import { detectRemoteSystemd, type RemoteSystemd } from "./systemd-bridge-ssh.ts";
import { remoteUnitManagers } from "./systemd-remote.ts";

/**
 * What {@link sshChangePorts} needs: the host's session on the shared pool (with `sftp`, unit files are read
 * through the connection's SFTP channel rather than one exec each), its inventory name, login and become.
 */
export interface SshChangePortsOptions {
  session: Pick<SshSession, "openChannel"> & Partial<Pick<SshSession, "sftp">>;
  name: string;
  login: string;
  become: Become;
}

/**
 * The ports that change an SSH host and reach its systemd (issue 20): its HostMutator and UnitManagerSet, given
 * to sshActionContext as `mutator` and `units`, plus what was found about its systemd (`systemd.detail` is the
 * sentence doctor/describe show: remote D-Bus, systemctl fallback, or none). One round trip (the detection);
 * nothing else is opened until a call needs it. Rejects only when the host cannot be reached.
 */
export async function sshChangePorts(o: SshChangePortsOptions): Promise<{ mutator: SshHostMutator; units: UnitManagerSet; systemd: RemoteSystemd }> {
  const open = sessionExecOpener(o.session);
  const systemd = await detectRemoteSystemd(open, o.name);
  const ports = { open, host: o.name, login: o.login, become: o.become };
  return { mutator: new SshHostMutator(ports), units: remoteUnitManagers({ ...ports, sftp: o.session.sftp }, systemd), systemd };
}
