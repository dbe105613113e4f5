#!/bin/bash
# disk-full / diagnose: read-only report on full filesystems. Usage: diagnose.sh [MOUNTPOINT] [--top N]
# Changes nothing. Safe to run without root (some directories and processes are then skipped).
set -u
export LC_ALL=C
PATH=/usr/sbin:/usr/bin:/sbin:/bin

top=15
mount=""
while [ $# -gt 0 ]; do
  case "$1" in
    --top) shift; top="${1:-}"; case "$top" in ''|*[!0-9]*) echo "diagnose.sh: --top needs a number" >&2; exit 2;; esac ;;
    -h|--help) echo "usage: diagnose.sh [MOUNTPOINT] [--top N]"; exit 0 ;;
    /*) mount="$1" ;;
    *) echo "diagnose.sh: MOUNTPOINT must be an absolute path, got '$1'" >&2; exit 2 ;;
  esac
  shift
done

section() { printf '\n== %s ==\n' "$1"; }
have() { command -v "$1" >/dev/null 2>&1; }
[ "$(id -u)" -eq 0 ] || echo "note: not running as root; directories and processes of other users are skipped."

section "Filesystems (bytes)"
timeout 20 df -hPT -x tmpfs -x devtmpfs -x squashfs -x overlay 2>/dev/null || echo "df timed out (a hung network mount?)"

section "Filesystems (inodes)"
timeout 20 df -iPT -x tmpfs -x devtmpfs -x squashfs -x overlay 2>/dev/null || echo "df -i timed out"

section "Filesystems at or above 85% (bytes or inodes)"
hot=$( {
  timeout 20 df -PT -x tmpfs -x devtmpfs -x squashfs -x overlay 2>/dev/null | awk 'NR>1 { u=$6; sub("%","",u); if (u+0 >= 85) printf "%s %s bytes %s%%\n", $7, $1, u }'
  timeout 20 df -iPT -x tmpfs -x devtmpfs -x squashfs -x overlay 2>/dev/null | awk 'NR>1 { u=$6; sub("%","",u); if (u != "-" && u+0 >= 85) printf "%s %s inodes %s%%\n", $7, $1, u }'
} )
echo "${hot:-(none)}"

if [ -z "$mount" ]; then
  # The fullest real filesystem by byte use.
  mount=$(timeout 20 df -P -x tmpfs -x devtmpfs -x squashfs -x overlay 2>/dev/null | awk 'NR>1 { u=$5; sub("%","",u); if (u+0 > best) { best=u+0; m=$6 } } END { print m }')
fi
if [ -n "$mount" ]; then
  section "Read-only remount or errors on $mount"
  opts=$(findmnt -no OPTIONS --target "$mount" 2>/dev/null)
  case ",$opts," in *,ro,*) echo "$mount is mounted READ-ONLY ($opts): check the kernel log for filesystem errors first." ;; *) echo "mounted rw ($opts)";; esac

  section "Largest directories on $mount (same filesystem only, depth 2, top $top)"
  # nice/ionice keep the scan from competing with the workload; the time limit bounds huge trees.
  io=()
  have ionice && io=(ionice -c3)
  timeout 120 nice -n 19 "${io[@]}" du -xh --max-depth=2 -- "$mount" 2>/dev/null | sort -rh | head -n "$((top + 1))"
  [ "${PIPESTATUS[0]}" = 124 ] && echo "(du stopped after 120 s: the list is partial)"
fi

section "Deleted files still held open (space df counts but du cannot see)"
held=$(for fd in /proc/[0-9]*/fd/*; do
  target=$(readlink "$fd" 2>/dev/null) || continue
  case "$target" in
    *' (deleted)')
      size=$(stat -L -c %s "$fd" 2>/dev/null) || continue
      [ "$size" -gt 1048576 ] || continue
      pid=${fd#/proc/}; pid=${pid%%/*}
      comm=$(cat "/proc/$pid/comm" 2>/dev/null)
      printf '%10d MiB  pid %-7s %-16s %s\n' "$((size / 1048576))" "$pid" "$comm" "${target% (deleted)}" ;;
  esac
done | sort -rn | head -n "$top")
echo "${held:-(none over 1 MiB)}"

section "systemd journal"
if have journalctl; then timeout 20 journalctl --disk-usage 2>&1 | head -n 3; else echo "journalctl not found"; fi

section "Package caches"
for d in /var/cache/apt/archives /var/cache/dnf /var/cache/yum; do
  [ -d "$d" ] && timeout 30 du -sh -- "$d" 2>/dev/null
done

section "Core dumps and container data"
for d in /var/lib/systemd/coredump /var/crash /var/lib/docker /var/lib/containers; do
  [ -d "$d" ] && timeout 60 du -sh -- "$d" 2>/dev/null
done
exit 0
