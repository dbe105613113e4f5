#!/bin/sh
# Builds the base image test/packaging/image.test.ts builds the Containerfile from (no registry can be reached on
# the test machines): a Debian bookworm minbase root filesystem plus this machine's Node.js binary at
# /usr/local/bin/node (where the official node:20 images have it; Debian 12's own nodejs is 18), packed as a
# tarball for `podman import`. Cached outside git, keyed by VERSION and the Node.js version.
# Usage: scripts/build-image-base.sh [CACHE_DIR]
#   default: $HOSTGATE_IMAGE_BASE_CACHE or /var/cache/hostgate-test/image-base-v$VERSION-node$(node --version)
# Prints the tarball's path on stdout. Idempotent: does nothing when CACHE_DIR/.complete exists. Needs root,
# debootstrap, node on PATH and the Debian mirror named in /etc/apt/sources.list.d/debian.sources. ≈60 s.
#   v1: minbase + node
set -eu
VERSION=1
NODE="$(command -v node)" || { echo "build-image-base: node is not on PATH (install Node.js 20)" >&2; exit 1; }
case "$("$NODE" --version)" in v20.*) ;; *) echo "build-image-base: node $("$NODE" --version) is not Node.js 20, which hostgate's native modules are built for" >&2; exit 1 ;; esac
command -v debootstrap >/dev/null || { echo "build-image-base: no debootstrap (apt-get install debootstrap)" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "build-image-base: needs root (debootstrap)" >&2; exit 1; }
CACHE="${1:-${HOSTGATE_IMAGE_BASE_CACHE:-/var/cache/hostgate-test/image-base-v$VERSION-node$("$NODE" --version)}}"
if [ -f "$CACHE/.complete" ]; then
  echo "$CACHE/base.tar"
  exit 0
fi
MIRROR="$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)"
MIRROR="${MIRROR:-http://deb.debian.org/debian}"
TMP="$CACHE.tmp.$$"
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$TMP"
debootstrap --variant=minbase bookworm "$TMP/rootfs" "$MIRROR" >&2
install -m 0755 "$NODE" "$TMP/rootfs/usr/local/bin/node"
# What an image does not need: apt's downloaded packages and lists (the official images drop them too).
rm -rf "$TMP/rootfs/var/cache/apt/archives/"*.deb "$TMP/rootfs/var/lib/apt/lists/"*
tar -C "$TMP/rootfs" --numeric-owner -cf "$TMP/base.tar" .
rm -rf "$TMP/rootfs"
rm -rf "$CACHE"
mv "$TMP" "$CACHE"
touch "$CACHE/.complete"
echo "$CACHE/base.tar"
