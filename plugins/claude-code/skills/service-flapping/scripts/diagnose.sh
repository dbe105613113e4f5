#!/bin/bash
# service-flapping / diagnose: read-only report on a restart loop. Usage: diagnose.sh [UNIT] [--lines N]
# Changes nothing. Without a unit, lists services that restarted or failed.
set -u
export LC_ALL=C SYSTEMD_PAGER= SYSTEMD_COLORS=0
PATH=/usr/sbin:/usr/bin:/sbin:/bin

unit=""
lines=60
while [ $# -gt 0 ]; do
  case "$1" in
    --lines) shift; lines="${1:-}"; case "$lines" in ''|*[!0-9]*) echo "diagnose.sh: --lines needs a number" >&2; exit 2;; esac ;;
    -h|--help) echo "usage: diagnose.sh [UNIT] [--lines N]"; exit 0 ;;
    -*) echo "diagnose.sh: unknown option $1" >&2; exit 2 ;;
    *) unit="$1" ;;
  esac
  shift
done
# Unit names: systemd's allowed characters only (no option injection, no globs).
if [ -n "$unit" ]; then
  case "$unit" in *[!A-Za-z0-9:_.@\\-]*|-*) echo "diagnose.sh: '$unit' is not a unit name" >&2; exit 2 ;; esac
  case "$unit" in *.*) ;; *) unit="$unit.service" ;; esac
fi

section() { printf '\n== %s ==\n' "$1"; }
if [ ! -d /run/systemd/system ]; then
  echo "systemd is not running on this host (no /run/systemd/system): nothing to diagnose here."
  exit 0
fi
[ "$(id -u)" -eq 0 ] || echo "note: not running as root; the journal of system services may be hidden (group adm or systemd-journal shows it)."

if [ -z "$unit" ]; then
  section "Services that restarted (NRestarts > 0) or failed"
  timeout 30 systemctl list-units --type=service --all --no-legend --plain 2>/dev/null | awk '{print $1}' | while read -r u; do
    case "$u" in *.service) ;; *) continue ;; esac
    r=$(systemctl show -p NRestarts --value -- "$u" 2>/dev/null)
    s=$(systemctl show -p ActiveState --value -- "$u" 2>/dev/null)
    if [ "${r:-0}" -gt 0 ] || [ "$s" = failed ]; then printf '%-50s NRestarts=%-5s %s\n' "$u" "${r:-?}" "$s"; fi
  done
  echo "(run again with a unit name for its details)"
  exit 0
fi

section "State of $unit"
timeout 15 systemctl show -p LoadState,ActiveState,SubState,Result,NRestarts,Restart,RestartUSec,StartLimitBurst,StartLimitIntervalUSec,ExecMainCode,ExecMainStatus,ExecMainStartTimestamp,ExecMainExitTimestamp,ActiveEnterTimestamp,InactiveEnterTimestamp,MemoryCurrent,MemoryMax,TimeoutStartUSec,Type,FragmentPath,DropInPaths -- "$unit" 2>&1
code=$(systemctl show -p ExecMainCode --value -- "$unit" 2>/dev/null)
status=$(systemctl show -p ExecMainStatus --value -- "$unit" 2>/dev/null)
case "$code" in
  1) echo "last exit: exited with status $status" ;;
  2) echo "last exit: killed by signal $status ($(kill -l "$status" 2>/dev/null))" ;;
  3) echo "last exit: dumped core on signal $status ($(kill -l "$status" 2>/dev/null))" ;;
  *) # Running again right now: the last exit is only in the journal.
     last=$(timeout 20 journalctl -q --no-pager -u "$unit" -n 300 -o cat 2>/dev/null | grep -E "Main process exited|Failed with result" | tail -n 2)
     echo "last exit (journal): ${last:-none recorded, or the journal is not readable as this user}" ;;
esac

section "Restart and failure events in the last 24 h"
timeout 30 journalctl -q --no-pager -u "$unit" --since "-24h" -o short-iso 2>/dev/null |
  grep -E "Started |Stopped |Main process exited|Failed with result|Scheduled restart job|start request repeated|Start request repeated|start-limit-hit|Consumed" |
  tail -n 30
n=$(timeout 30 journalctl -q --no-pager -u "$unit" --since "-1h" -o cat 2>/dev/null | grep -cE "Scheduled restart job|Main process exited")
echo "restarts or exits in the last hour: ${n:-0}"

section "Last $lines journal lines of $unit"
timeout 30 journalctl -q --no-pager -u "$unit" -n "$lines" -o short-iso 2>&1 | tail -n "$lines"

section "OOM kills mentioning $unit (kernel log, 7 days)"
base="${unit%.service}"
timeout 30 journalctl -q --no-pager -k --since "-7d" -o short-iso 2>/dev/null | grep -iE "oom|out of memory|killed process" | grep -F -- "$base" | tail -n 10 || true

section "Dependencies that failed"
for dep in $(systemctl show -p Requires,Wants,BindsTo,After --value -- "$unit" 2>/dev/null | tr ' ' '\n' | sort -u); do
  case "$dep" in *.service|*.mount|*.socket|*.target) ;; *) continue ;; esac
  [ "$(systemctl show -p ActiveState --value -- "$dep" 2>/dev/null)" = failed ] && echo "$dep is failed"
done
echo "(done)"
exit 0
