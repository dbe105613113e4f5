/**
 * The systemd units `hostgate daemon install` writes, as text. Pure: paths and versions come in as arguments.
 * Hardening follows systemd.exec(5): every protection the actions allow is on; each one the actions need
 * relaxed is written out, commented with the action that needs it, so an operator who disables those actions
 * can tighten it knowingly.
 */

/** First line of every unit we write: uninstall removes only files that carry it. */
export const UNIT_MARKER = "# Written by `hostgate daemon install`";

/** Names of the units and the group. */
export const SERVICE_UNIT = "hostgate.service";
export const VSOCK_SOCKET_UNIT = "hostgate-vsock.socket";
export const VSOCK_SERVICE_UNIT = "hostgate-vsock.service";
export const AGENT_GROUP = "hostgate";

/** What the unit runs. */
export interface UnitInputs {
  /** Absolute path of the Node.js binary. */
  node: string;
  /** Absolute path of hostgate's launcher (bin/hostgate.js). */
  script: string;
  version: string;
}

/** The daemon's service unit. */
export function serviceUnit(u: UnitInputs): string {
  return `${UNIT_MARKER} (hostgate ${u.version}); \`hostgate daemon uninstall\` removes it.
[Unit]
Description=hostgate daemon: approval-gated, audit-logged changes to this host
After=network.target dbus.service

[Service]
Type=simple
ExecStart=${u.node} ${u.script} daemon
Restart=on-failure
RestartSec=2s
# Runs as root (the actions manage services and packages) with the group ${AGENT_GROUP}: the agent socket
# (/run/hostgate/agent.sock, mode 0660) belongs to that group, so its members can plan and query; the admin
# socket (mode 0600) stays root's, so approving needs root at a terminal. daemon.agent_group in
# /etc/hostgate/config.yaml gives the agent socket another group instead (the runtime directory is 0755 for it).
# Group= only names that group: at start the daemon (uid 0) makes root its own primary group, so the files it,
# its actions and their programs (dpkg, maintainer scripts) create are root:root, never root:${AGENT_GROUP}.
Group=${AGENT_GROUP}
UMask=0077
StateDirectory=hostgate
StateDirectoryMode=0700
RuntimeDirectory=hostgate
RuntimeDirectoryMode=0755
ConfigurationDirectory=hostgate
ConfigurationDirectoryMode=0755
# Checkpoint copies outside the state directory (append-only file, chattr +a: needs CAP_LINUX_IMMUTABLE).
LogsDirectory=hostgate
LogsDirectoryMode=0750

# Hardening that every action allows.
NoNewPrivileges=yes
PrivateTmp=yes
ProtectClock=yes
ProtectHostname=yes
ProtectKernelLogs=yes
ProtectControlGroups=yes
ProtectKernelTunables=yes
LockPersonality=yes
RestrictRealtime=yes
RestrictNamespaces=yes
SystemCallArchitectures=native
RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK
KeyringMode=private

# Relaxed on purpose (each names the actions that need it):
# ProtectSystem=strict would make /usr and /etc read-only: InstallPackage/RemovePackage/UpdatePackageIndex
# write /usr, /var/lib/dpkg and /etc; WriteFile writes configuration under /etc.
ProtectSystem=no
# ProtectHome=yes would hide /home, /root and /run/user: WriteFile may write there (it refuses only account
# databases, sudoers, /boot, /proc, /sys, /dev and private keys).
ProtectHome=no
# ProtectProc=invisible would hide other users' processes: ListProcesses, GetProcess and SignalProcess see them.
ProtectProc=default
# ProtectKernelModules=yes would block depmod/modprobe that kernel and driver packages run on install.
ProtectKernelModules=no
# PrivateDevices=yes would hide block devices from package scripts (initramfs, bootloader updates).
PrivateDevices=no
# RestrictSUIDSGID=yes would stop dpkg/rpm from installing setuid programs (sudo, passwd…).
RestrictSUIDSGID=no
# MemoryDenyWriteExecute=yes breaks Node.js: V8's JIT needs writable+executable memory.
MemoryDenyWriteExecute=no

[Install]
WantedBy=multi-user.target
`;
}

/**
 * The vsock listener for a daemon in a VM: systemd listens on vsock port `port` (Node.js has no AF_VSOCK) and
 * hands each connection to systemd-socket-proxyd, which forwards it to the agent socket. A vsock peer (the
 * hypervisor host) gets what a member of the hostgate group gets: the agent methods, never approval.
 */
export function vsockSocketUnit(port: number, version: string): string {
  return `${UNIT_MARKER} (hostgate ${version}); \`hostgate daemon uninstall\` removes it.
[Unit]
Description=hostgate agent socket on vsock port ${port} (for the hypervisor host)
After=${SERVICE_UNIT}
Requires=${SERVICE_UNIT}

[Socket]
ListenStream=vsock::${port}
Accept=no

[Install]
WantedBy=sockets.target
`;
}

/** The proxy service the vsock socket unit activates. */
export function vsockServiceUnit(proxyd: string, version: string): string {
  return `${UNIT_MARKER} (hostgate ${version}); \`hostgate daemon uninstall\` removes it.
[Unit]
Description=hostgate vsock to agent socket proxy
Requires=${SERVICE_UNIT} ${VSOCK_SOCKET_UNIT}
After=${SERVICE_UNIT} ${VSOCK_SOCKET_UNIT}

[Service]
ExecStart=${proxyd} /run/hostgate/agent.sock
# Its own throw-away user, in the group that may use the agent socket; nothing else.
DynamicUser=yes
SupplementaryGroups=${AGENT_GROUP}
PrivateNetwork=yes
NoNewPrivileges=yes
ProtectSystem=strict
ProtectHome=yes
PrivateTmp=yes
PrivateDevices=yes
ProtectKernelTunables=yes
ProtectKernelModules=yes
ProtectControlGroups=yes
RestrictAddressFamilies=AF_UNIX
CapabilityBoundingSet=
`;
}

/** Validates a vsock port number (1–4294967294; -1/0xffffffff is VMADDR_PORT_ANY). */
export function parseVsockPort(value: string): number | null {
  if (!/^\d{1,10}$/.test(value)) return null;
  const n = Number(value);
  return n >= 1 && n < 0xffffffff ? n : null;
}
