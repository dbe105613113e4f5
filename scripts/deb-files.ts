/**
 * The text files of hostgate's Debian package (scripts/build-deb.ts; docs/install.md "Debian package"): control,
 * maintainer scripts, the packaged systemd unit, sysusers.d entry, copyright and changelog. Pure: everything
 * comes in as arguments. Rules followed: Debian Policy (control fields §5.3, maintainer scripts §6, /usr/share/doc
 * copyright and changelog §12.5/§12.7) and systemd.unit(5) for units shipped in /lib/systemd/system.
 */
import { AGENT_GROUP, SERVICE_UNIT, UNIT_MARKER, serviceUnit } from "../src/core/service/units.ts";

/** Where the package puts things (absolute paths inside the installed system). */
export const DEB_PATHS = {
  /** The npm package's files and its production node_modules. */
  lib: "/usr/lib/hostgate",
  /** The command: a symbolic link to lib/bin/hostgate.js. */
  bin: "/usr/bin/hostgate",
  /** Units shipped by packages on Debian 12 (not /etc: no conffile, `hostgate daemon install` stays the admin's). */
  unitDir: "/lib/systemd/system",
  sysusers: "/usr/lib/sysusers.d/hostgate.conf",
  man1: "/usr/share/man/man1",
  bashCompletion: "/usr/share/bash-completion/completions/hostgate",
  zshCompletion: "/usr/share/zsh/vendor-completions/_hostgate",
  doc: "/usr/share/doc/hostgate",
  lintianOverrides: "/usr/share/lintian/overrides/hostgate",
} as const;

/**
 * lintian overrides, each for a choice made on purpose: the confine helper is linked statically (one exec, no
 * loader between it and the sandbox: native/confine-helper.c); the maintainer scripts call systemctl directly
 * to reload and, on removal, stop and disable, because deb-systemd-helper would enable the unit, which the
 * package must not do; koffi's build helper starts with `env -S node`.
 */
export const LINTIAN_OVERRIDES = `hostgate: statically-linked-binary [usr/lib/hostgate/dist/hostgate-confine]
hostgate: maintainer-script-calls-systemctl [*]
hostgate: unusual-interpreter -S [usr/lib/hostgate/node_modules/koffi/cnoke.cjs]
`;

/** What the control file says. `installedKiB`: the payload's size in KiB (Installed-Size). */
export interface ControlInputs {
  version: string;
  /** dpkg architecture (`dpkg --print-architecture`): the package carries native modules built for it. */
  arch: string;
  /** Major version of the Node.js the native modules were built for (their ABI): Depends pins it. */
  nodeMajor: number;
  installedKiB: number;
  description: string;
  homepage: string;
}

/** Text as extended-description lines: each starts with a space and stays under 80 columns. */
function wrap(text: string): string {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/)) {
    if (line && line.length + 1 + word.length > 76) { lines.push(` ${line}`); line = word; } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(` ${line}`);
  return lines.join("\n");
}

/** DEBIAN/control. */
export function control(c: ControlInputs): string {
  return `Package: hostgate
Version: ${c.version}
Architecture: ${c.arch}
Maintainer: hostgate maintainers <hostgate@users.noreply.github.com>
Installed-Size: ${c.installedKiB}
Depends: nodejs (>= ${c.nodeMajor}), nodejs (<< ${c.nodeMajor + 1}), libc6, libstdc++6, passwd
Recommends: bubblewrap
Section: admin
Priority: optional
Homepage: ${c.homepage}
Description: AI assistants inspect Linux hosts; changes need human approval
${wrap(c.description)}
 .
 One command, hostgate: the MCP server (hostgate mcp, hostgate serve), the
 privileged daemon (hostgate.service, not enabled or started by the package)
 and the CLI that approves plans (hostgate approve). Native modules are built
 for Node.js ${c.nodeMajor}.
`;
}

/** The packaged service unit: `hostgate daemon install`'s unit with /usr/bin/node and the packaged launcher. */
export function packagedUnit(version: string): string {
  const unit = serviceUnit({ node: "/usr/bin/node", script: `${DEB_PATHS.lib}/bin/hostgate.js`, version });
  const first = unit.indexOf("\n");
  if (!unit.startsWith(UNIT_MARKER)) throw new Error("serviceUnit() no longer starts with UNIT_MARKER: update packagedUnit()");
  return `# Installed by the hostgate ${version} Debian package (dpkg -r hostgate removes it). Enable it with\n# systemctl enable --now ${SERVICE_UNIT}; local changes belong in systemctl edit ${SERVICE_UNIT}.${unit.slice(first)}`;
}

/** sysusers.d(5) entry: the group whose members may use the agent socket. */
export const SYSUSERS = `# The group whose members may use hostgate's agent socket (/run/hostgate/agent.sock).\ng ${AGENT_GROUP} -\n`;

/**
 * DEBIAN/postinst: the group (systemd-sysusers when present, else groupadd); units reloaded; nothing started.
 * Unless the service already runs, it says that the service is neither enabled nor started, the command that does
 * both, and how a user joins the group (issue 25 re-trial: nothing said so after install).
 */
export const POSTINST = `#!/bin/sh
set -e
if [ "$1" = configure ]; then
  if ! getent group ${AGENT_GROUP} >/dev/null; then
    if command -v systemd-sysusers >/dev/null 2>&1; then systemd-sysusers ${DEB_PATHS.sysusers.split("/").pop()}; else groupadd --system ${AGENT_GROUP}; fi
  fi
  if [ -d /run/systemd/system ]; then systemctl --system daemon-reload >/dev/null || true; fi
  if [ -d /run/systemd/system ] && systemctl --quiet is-active ${SERVICE_UNIT} 2>/dev/null; then :; else
    echo "hostgate: the service is installed but not enabled or started; to do both: sudo systemctl enable --now ${SERVICE_UNIT.replace(/\.service$/, "")}"
    echo "hostgate: users who may query and plan (approving stays root's): sudo usermod -aG ${AGENT_GROUP} USER, then log in again"
  fi
fi
exit 0
`;

/** DEBIAN/prerm: on removal (not upgrade) the service is stopped and disabled, so no enablement link stays behind. */
export const PRERM = `#!/bin/sh
set -e
if [ "$1" = remove ] && [ -d /run/systemd/system ]; then
  systemctl stop ${SERVICE_UNIT} >/dev/null 2>&1 || true
  systemctl disable ${SERVICE_UNIT} >/dev/null 2>&1 || true
fi
exit 0
`;

/** Where purge keeps the audit chain (docs/install.md "Removing the package"): root-only, one directory per purge. */
export const AUDIT_BACKUP_DIR = "/var/backups/hostgate";

/**
 * DEBIAN/postrm: units reloaded after removal. Purge deletes the daemon's state, logs and the group, but not the
 * evidence (issue 25): the audit database, the public keys of its chain (`audit-keys/*.pub`, regular files only;
 * never the private signing key `current.key` or a prepared `next.key`: verifying needs only public keys, and
 * whoever held a private one could extend the chain), the checkpoint copies (append-only: chattr
 * -a first to move them, chattr +a again once kept, or a line saying the copy is not append-only) and the key pins in /etc/hostgate/audit-pins are moved to `AUDIT_BACKUP_DIR/audit-<UTC time>/`
 * (root:root, 0700) and the script says where and how to verify them. The pins move too, rather than stay:
 * they are what the chain is verified against, and left in /etc they would be owned by the deleted group's GID,
 * which a group created later would inherit.
 */
export const POSTRM = `#!/bin/sh
set -e
if [ -d /run/systemd/system ]; then systemctl --system daemon-reload >/dev/null || true; fi
if [ "$1" = purge ]; then
  if command -v chattr >/dev/null 2>&1 && [ -d /var/log/hostgate ]; then chattr -R -a /var/log/hostgate 2>/dev/null || true; fi
  if [ -e /var/lib/hostgate/audit.db ] || [ -d /var/lib/hostgate/audit-keys ] || [ -d /var/log/hostgate ] || [ -d /etc/hostgate/audit-pins ]; then
    kept=${AUDIT_BACKUP_DIR}/audit-$(date -u +%Y%m%dT%H%M%SZ)
    umask 077
    mkdir -p ${AUDIT_BACKUP_DIR} "$kept"
    chmod 0700 ${AUDIT_BACKUP_DIR} "$kept"
    for f in audit.db audit.db-wal audit.db-shm; do
      if [ -e "/var/lib/hostgate/$f" ]; then mv "/var/lib/hostgate/$f" "$kept/"; fi
    done
    if [ -d /var/lib/hostgate/audit-keys ]; then
      mkdir "$kept/audit-keys"
      for f in /var/lib/hostgate/audit-keys/*.pub; do if [ -f "$f" ] && [ ! -L "$f" ]; then mv "$f" "$kept/audit-keys/"; fi; done
    fi
    if [ -d /var/log/hostgate ]; then mv /var/log/hostgate "$kept/log"; fi
    if [ -d /etc/hostgate/audit-pins ]; then mv /etc/hostgate/audit-pins "$kept/audit-pins"; fi
    for f in "$kept" "$kept"/* "$kept"/*/*; do if [ -e "$f" ] || [ -L "$f" ]; then chown -h root:root "$f"; fi; done
    for f in "$kept"/log/*.jsonl; do
      if [ -f "$f" ] && ! { command -v chattr >/dev/null 2>&1 && chattr +a "$f" 2>/dev/null; }; then echo "hostgate: $f is NOT append-only (chattr +a failed: no chattr, or the file system of ${AUDIT_BACKUP_DIR} does not keep the flag)"; fi
    done
    echo "hostgate: purge kept the audit chain (audit.db, the public keys in audit-keys/ but not the private signing key, checkpoint copies in log/, append-only again, key pins in audit-pins/) in $kept"
    pin=; n=0
    for f in "$kept"/audit-pins/*.pub; do if [ -e "$f" ]; then n=$((n + 1)); pin=$f; fi; done
    if [ "$n" != 1 ]; then pin="$kept/audit-pins/<one of its .pub files>"; fi
    echo "hostgate: verify it as root with hostgate installed (purge has just removed it; any hostgate build verifies): sudo hostgate audit verify --db $kept/audit.db --public-key $pin --checkpoints $kept/log/audit-checkpoints.jsonl; delete it when it is no longer needed (chattr -R -a $kept first)"
    echo "hostgate: (a pin is named after the state directory it pins, not after a key: it holds that chain's keys across rotations, each audit-keys/<key id>.pub holds one)"
  fi
  rm -rf /var/lib/hostgate /var/log/hostgate
  rmdir /etc/hostgate 2>/dev/null || true
  # Left behind (the admin's own files in it): systemd made it root:${AGENT_GROUP}; not a bare GID once the group is gone.
  if [ -d /etc/hostgate ]; then chgrp root /etc/hostgate; fi
  if getent group ${AGENT_GROUP} >/dev/null; then groupdel ${AGENT_GROUP} || true; fi
fi
exit 0
`;

/** /usr/share/doc/hostgate/copyright (machine-readable, DEP-5). */
export function copyright(homepage: string, year: number): string {
  return `Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: hostgate
Source: ${homepage}

Files: *
Copyright: ${year} hostgate contributors
License: Apache-2.0

Files: usr/lib/hostgate/node_modules/*
Copyright: the authors of each module (see its package.json and LICENSE file)
License: various
 Each bundled npm module keeps its own license file beside it.

License: Apache-2.0
 On Debian systems the full text of the Apache License 2.0 is in
 /usr/share/common-licenses/Apache-2.0.
`;
}

/** /usr/share/doc/hostgate/changelog (a native package's changelog, gzipped by the builder). `date`: RFC 2822. */
export function changelog(version: string, date: string): string {
  return `hostgate (${version}) unstable; urgency=medium

  * Release ${version}: see https://github.com/hostgate/hostgate/releases.

 -- hostgate maintainers <hostgate@users.noreply.github.com>  ${date}
`;
}
