#!/bin/bash
# memory-pressure / diagnose: read-only report on memory use and OOM kills. Usage: diagnose.sh [--days N]
set -u
export LC_ALL=C
PATH=/usr/sbin:/usr/bin:/sbin:/bin

days=7
while [ $# -gt 0 ]; do
  case "$1" in
    --days) shift; days="${1:-}"; case "$days" in ''|*[!0-9]*) echo "diagnose.sh: --days needs a number" >&2; exit 2;; esac ;;
    -h|--help) echo "usage: diagnose.sh [--days N]"; exit 0 ;;
    *) echo "diagnose.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
section() { printf '\n== %s ==\n' "$1"; }
have() { command -v "$1" >/dev/null 2>&1; }
[ "$(id -u)" -eq 0 ] || echo "note: not running as root; the kernel log may be restricted (kernel.dmesg_restrict)."

section "Memory (MiB)"
awk '/^(MemTotal|MemAvailable|MemFree|Buffers|Cached|Shmem|SwapTotal|SwapFree|Dirty|AnonPages|Slab|SUnreclaim|CommitLimit|Committed_AS):/ { printf "%-14s %9d\n", $1, $2/1024 }' /proc/meminfo
awk '/^MemTotal:/ {t=$2} /^MemAvailable:/ {a=$2} END { if (t > 0) printf "available: %.1f%% of total%s\n", 100*a/t, (100*a/t < 5 ? "  <-- LOW" : "") }' /proc/meminfo

section "Pressure stall information (memory)"
if [ -r /proc/pressure/memory ]; then cat /proc/pressure/memory; else echo "PSI not available (kernel without CONFIG_PSI, or psi=0)"; fi

section "Swap activity since boot (pages)"
grep -E '^(pswpin|pswpout|oom_kill|pgmajfault) ' /proc/vmstat 2>/dev/null

section "Top 15 processes by resident memory"
# procps on Debian 12 has no oom_score column: it is read from /proc per process.
printf '%7s %-12s %10s %10s %9s %s\n' PID USER RSS_MiB VSZ_MiB OOM_SCORE COMMAND
ps -eo pid=,user:12=,rss=,vsz=,comm= --sort=-rss 2>/dev/null | head -n 15 | while read -r pid user rss vsz comm; do
  printf '%7s %-12s %10d %10d %9s %s\n' "$pid" "$user" "$((rss / 1024))" "$((vsz / 1024))" "$(cat "/proc/$pid/oom_score" 2>/dev/null || echo -)" "$comm"
done

section "tmpfs usage (memory no process owns)"
df -hP -t tmpfs 2>/dev/null | awk 'NR==1 || $3 != "0"'

section "cgroups that hit their memory limit (memory.events oom_kill > 0)"
if [ -d /sys/fs/cgroup ]; then
  hits=$(find /sys/fs/cgroup -maxdepth 6 -name memory.events -type f 2>/dev/null | while read -r f; do
    k=$(awk '$1 == "oom_kill" { print $2 }' "$f" 2>/dev/null)
    if [ "${k:-0}" -gt 0 ]; then
      d=${f%/memory.events}
      printf '%s oom_kill=%s max=%s\n' "${d#/sys/fs/cgroup}" "$k" "$(cat "$d/memory.max" 2>/dev/null || echo -)"
    fi
  done)
  echo "${hits:-(none)}"
fi

section "OOM events in the kernel log (last $days days)"
events=""
if have journalctl && [ -d /run/systemd/system ]; then
  events=$(timeout 30 journalctl -q --no-pager -k --since "-${days}d" -o short-iso 2>/dev/null | grep -E "Out of memory|oom-kill:|Killed process|invoked oom-killer|Memory cgroup out of memory" | tail -n 40)
fi
if [ -z "$events" ] && have dmesg; then
  events=$(timeout 10 dmesg -T 2>/dev/null | grep -E "Out of memory|oom-kill:|Killed process|invoked oom-killer|Memory cgroup out of memory" | tail -n 40)
fi
echo "${events:-(none found, or the kernel log is not readable as this user)}"

section "systemd-oomd"
if have oomctl && [ -d /run/systemd/system ]; then
  timeout 10 journalctl -q --no-pager -u systemd-oomd --since "-${days}d" -o short-iso 2>/dev/null | grep -i "killed" | tail -n 10
  timeout 10 oomctl 2>/dev/null | head -n 20
else
  echo "systemd-oomd not installed or systemd not running"
fi
exit 0
