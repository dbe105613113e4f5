#!/bin/sh
# Builds the cached Debian bookworm rootfs that test/peers/nspawn.ts boots with systemd-nspawn.
# Usage: scripts/build-rootfs.sh [CACHE_DIR]   (default: $HOSTGATE_ROOTFS_CACHE or /var/cache/hostgate-test/rootfs-v$VERSION)
# Idempotent: does nothing when CACHE_DIR/.complete exists. Needs root, debootstrap and network access to
# the Debian mirror named in /etc/apt/sources.list.d/debian.sources (fallback deb.debian.org). ≈90 s.
# VERSION keys the cache directory: bump it whenever the package list or the setup below changes, so a machine
# with an older cache builds the new one beside it instead of reusing a rootfs that lacks what the tests need
# (test/peers/nspawn.ts ROOTFS_VERSION must say the same number).
#   v1: systemd, systemd-sysv, dbus
#   v2: + openssh-server, sudo (test/peers/nspawn-ssh.ts: SSH into a PID-1 systemd; ssh.service disabled here,
#       the peer starts it with its own host key and authorized keys)
set -eu
VERSION=2
ROOTFS="${1:-${HOSTGATE_ROOTFS_CACHE:-/var/cache/hostgate-test/rootfs-v$VERSION}}"
if [ -f "$ROOTFS/.complete" ]; then
  echo "rootfs already cached at $ROOTFS" >&2
  exit 0
fi
MIRROR="$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)"
MIRROR="${MIRROR:-http://deb.debian.org/debian}"
rm -rf "$ROOTFS.tmp"
mkdir -p "$(dirname "$ROOTFS")"
debootstrap --variant=minbase --include=systemd,systemd-sysv,dbus,openssh-server,sudo bookworm "$ROOTFS.tmp" "$MIRROR"
# Quiet, fast boot: no getty on the console, a fixed machine-id, a hostname (also in /etc/hosts: sudo resolves it).
echo hostgate-test > "$ROOTFS.tmp/etc/hostname"
printf '127.0.0.1 localhost\n127.0.1.1 hostgate-test\n' > "$ROOTFS.tmp/etc/hosts"
systemd-machine-id-setup --root="$ROOTFS.tmp" >/dev/null 2>&1 || true
# sshd does not start at boot: containers booted without SSH behave as v1 did, and no two copies share the host
# keys the package generated (the SSH peer writes its own and starts ssh.service).
systemctl --root="$ROOTFS.tmp" disable ssh.service >/dev/null 2>&1 || rm -f "$ROOTFS.tmp/etc/systemd/system/multi-user.target.wants/ssh.service"
rm -f "$ROOTFS.tmp"/etc/ssh/ssh_host_*
rm -rf "$ROOTFS"
mv "$ROOTFS.tmp" "$ROOTFS"
touch "$ROOTFS/.complete"
echo "rootfs built at $ROOTFS" >&2
