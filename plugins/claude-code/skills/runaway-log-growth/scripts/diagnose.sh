#!/bin/bash
# runaway-log-growth / diagnose: read-only report on growing logs.
# Usage: diagnose.sh [--interval SECONDS] [--min-mb N] [--dir PATH]
set -u
export LC_ALL=C SYSTEMD_PAGER= SYSTEMD_COLORS=0
PATH=/usr/sbin:/usr/bin:/sbin:/bin

interval=10
minmb=50
dir=/var/log
num() { case "${1:-}" in ''|*[!0-9]*) echo "diagnose.sh: $2 needs a number" >&2; exit 2;; esac; }
while [ $# -gt 0 ]; do
  case "$1" in
    --interval) shift; num "${1:-}" --interval; interval="$1"; [ "$interval" -le 120 ] || { echo "diagnose.sh: --interval is at most 120" >&2; exit 2; } ;;
    --min-mb) shift; num "${1:-}" --min-mb; minmb="$1" ;;
    --dir) shift; dir="${1:-}"; case "$dir" in /*) ;; *) echo "diagnose.sh: --dir needs an absolute path" >&2; exit 2;; esac ;;
    -h|--help) echo "usage: diagnose.sh [--interval SECONDS] [--min-mb N] [--dir PATH]"; exit 0 ;;
    *) echo "diagnose.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
section() { printf '\n== %s ==\n' "$1"; }
[ "$(id -u)" -eq 0 ] || echo "note: not running as root; files readable only by root or adm are skipped."

section "Filesystem holding $dir"
timeout 20 df -hP -- "$dir" 2>/dev/null

section "Largest files under $dir (>= ${minmb} MiB, same filesystem)"
tmp=$(mktemp) || exit 1
trap 'rm -f "$tmp"' EXIT
timeout 60 find "$dir" -xdev -type f -size +"$((minmb * 1024))"k -printf '%s %p\n' 2>/dev/null | sort -rn | head -n 20 > "$tmp"
if [ ! -s "$tmp" ]; then
  echo "(none)"
else
  while read -r size path; do printf '%8d MiB  %s\n' "$((size / 1048576))" "$path"; done < "$tmp"
  if [ "$interval" -gt 0 ]; then
    section "Growth over ${interval}s (largest files)"
    sleep "$interval"
    while read -r size path; do
      now=$(stat -c %s -- "$path" 2>/dev/null) || { printf '%10s  %s (gone: rotated?)\n' "-" "$path"; continue; }
      rate=$(( (now - size) / 1024 / interval ))
      flag=""; [ "$rate" -ge 100 ] && flag="  <-- FAST"
      [ "$now" -lt "$size" ] && flag="  (shrank: truncated or rotated)"
      printf '%7d KiB/s  %s%s\n' "$rate" "$path" "$flag"
    done < "$tmp"
  fi
  section "logrotate coverage of those files"
  rules=$(cat /etc/logrotate.conf /etc/logrotate.d/* 2>/dev/null)
  while read -r _ path; do
    base=${path%.[0-9]*}; base=${base%.gz}
    if printf '%s\n' "$rules" | grep -qF -- "$base"; then echo "covered      $path"
    elif printf '%s\n' "$rules" | grep -qF -- "$(dirname -- "$path")/*"; then echo "covered (*)  $path"
    else echo "NO RULE      $path"; fi
  done < "$tmp"
fi

section "Rotated copies (count and total per directory)"
timeout 60 find "$dir" -xdev -type f \( -name '*.[0-9]' -o -name '*.[0-9].gz' -o -name '*.gz' -o -name '*-[0-9]*[0-9]' \) -printf '%h %s\n' 2>/dev/null |
  awk '{ n[$1]++; s[$1] += $2 } END { for (d in n) printf "%6d files %8d MiB  %s\n", n[d], s[d]/1048576, d }' | sort -k3 -rn | head -n 10

section "logrotate last runs (status file)"
for f in /var/lib/logrotate/status /var/lib/logrotate/logrotate.status; do
  [ -r "$f" ] && { echo "$f:"; sort -t'"' -k3 "$f" 2>/dev/null | tail -n 5; }
done
if [ -d /run/systemd/system ]; then timeout 10 systemctl list-timers --all --no-pager 2>/dev/null | grep -E "logrotate|NEXT"; fi

section "systemd journal"
if command -v journalctl >/dev/null 2>&1; then
  timeout 20 journalctl --disk-usage 2>&1 | head -n 2
  grep -hE '^[[:space:]]*(SystemMaxUse|SystemKeepFree|SystemMaxFileSize|RuntimeMaxUse|RateLimitIntervalSec|RateLimitBurst|Storage)=' /etc/systemd/journald.conf /etc/systemd/journald.conf.d/*.conf 2>/dev/null || echo "(journald limits at their defaults: SystemMaxUse = 10% of the filesystem, at most 4G)"
  if [ -d /run/systemd/system ]; then
    echo "-- top message sources in the last hour:"
    timeout 60 journalctl -q --no-pager --since "-1h" -o json --output-fields=SYSLOG_IDENTIFIER,_SYSTEMD_UNIT 2>/dev/null |
      sed -n 's/.*"SYSLOG_IDENTIFIER":"\([^"]*\)".*/\1/p' | sort | uniq -c | sort -rn | head -n 10
  fi
fi
exit 0
