#!/bin/bash
# failed-boot-unit / diagnose: read-only report on units that failed during this boot. Usage: diagnose.sh [--lines N]
set -u
export LC_ALL=C SYSTEMD_PAGER= SYSTEMD_COLORS=0
PATH=/usr/sbin:/usr/bin:/sbin:/bin

lines=25
while [ $# -gt 0 ]; do
  case "$1" in
    --lines) shift; lines="${1:-}"; case "$lines" in ''|*[!0-9]*) echo "diagnose.sh: --lines needs a number" >&2; exit 2;; esac ;;
    -h|--help) echo "usage: diagnose.sh [--lines N]"; exit 0 ;;
    *) echo "diagnose.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
section() { printf '\n== %s ==\n' "$1"; }

section "fstab check (findmnt --verify; reads /etc/fstab, changes nothing)"
if command -v findmnt >/dev/null 2>&1; then timeout 20 findmnt --verify 2>&1 | tail -n 30; else echo "findmnt not found"; fi
if [ -r /etc/fstab ]; then
  awk '!/^[[:space:]]*(#|$)/ && $4 !~ /nofail/ && $4 !~ /noauto/ && $2 != "/" && $2 != "none" && $3 != "swap" { printf "no nofail: %s on %s (%s) - boot stops if it is missing\n", $1, $2, $3 }' /etc/fstab
fi

if [ ! -d /run/systemd/system ]; then
  echo
  echo "systemd is not running on this host (no /run/systemd/system): no unit state to read."
  exit 0
fi
[ "$(id -u)" -eq 0 ] || echo "note: not running as root; this boot's journal of system units may be hidden (group adm or systemd-journal shows it)."

section "System state"
timeout 10 systemctl is-system-running 2>&1
timeout 10 journalctl -q --no-pager --list-boots 2>/dev/null | tail -n 3

section "Failed units"
failed=$(timeout 20 systemctl list-units --failed --all --no-legend --plain 2>/dev/null | awk '{print $1}')
if [ -z "$failed" ]; then
  echo "(none)"
else
  for u in $failed; do
    case "$u" in *[!A-Za-z0-9:_.@\\-]*) continue ;; esac
    section "$u"
    timeout 10 systemctl show -p Result,ActiveState,SubState,ExecMainCode,ExecMainStatus,InactiveEnterTimestamp,FragmentPath,DropInPaths,Requires,After -- "$u" 2>&1
    echo "-- journal, this boot (last $lines lines):"
    timeout 20 journalctl -q --no-pager -b -u "$u" -n "$lines" -o short-iso 2>&1
  done
fi

section "Ordering cycles and dependency failures reported this boot"
timeout 30 journalctl -q --no-pager -b -o short-iso 2>/dev/null | grep -E "ordering cycle|Dependency failed|Job .* failed|Timed out waiting for device" | tail -n 20
echo "(end)"

section "Slowest units this boot"
timeout 20 systemd-analyze blame --no-pager 2>/dev/null | head -n 10 || echo "systemd-analyze unavailable"
timeout 20 systemd-analyze critical-chain --no-pager 2>/dev/null | head -n 15
exit 0
