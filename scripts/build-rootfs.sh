#!/bin/sh
# Builds the cached Debian bookworm rootfs that test/peers/nspawn.ts boots with systemd-nspawn.
# Usage: scripts/build-rootfs.sh [CACHE_DIR]   (default: $HOSTGATE_ROOTFS_CACHE or /var/cache/hostgate-test/rootfs)
# Idempotent: does nothing when CACHE_DIR/.complete exists. Needs root, debootstrap and network access to
# the Debian mirror named in /etc/apt/sources.list.d/debian.sources (fallback deb.debian.org). ≈80 s.
set -eu
ROOTFS="${1:-${HOSTGATE_ROOTFS_CACHE:-/var/cache/hostgate-test/rootfs}}"
if [ -f "$ROOTFS/.complete" ]; then
  echo "rootfs already cached at $ROOTFS" >&2
  exit 0
fi
MIRROR="$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)"
MIRROR="${MIRROR:-http://deb.debian.org/debian}"
rm -rf "$ROOTFS.tmp"
mkdir -p "$(dirname "$ROOTFS")"
debootstrap --variant=minbase --include=systemd,systemd-sysv,dbus bookworm "$ROOTFS.tmp" "$MIRROR"
# Quiet, fast boot: no getty on the console, a fixed machine-id, a hostname.
echo hostgate-test > "$ROOTFS.tmp/etc/hostname"
systemd-machine-id-setup --root="$ROOTFS.tmp" >/dev/null 2>&1 || true
rm -rf "$ROOTFS"
mv "$ROOTFS.tmp" "$ROOTFS"
touch "$ROOTFS/.complete"
echo "rootfs built at $ROOTFS" >&2
