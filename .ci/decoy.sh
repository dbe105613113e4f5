#!/usr/bin/env bash
# Proves the tests hermetic against what a shared machine may hold (issue 22: "npm test passes on a machine where
# a hostgate system daemon is running"): `start` runs a hostgate system daemon on /run/hostgate (its state in a
# temp dir) and writes /etc/hostgate/config.yaml with a key no loader accepts, so a test that joins that daemon
# or reads that file fails visibly; `stop` stops the daemon by PID and removes exactly what `start` made.
# Only when neither /run/hostgate nor /etc/hostgate exists (a real installation is never touched) and as root.
set -uo pipefail
cd "$(dirname "$0")/.."
marker=/run/hostgate-decoy.env
case "${1:-}" in
  start)
    if [ "$(id -u)" -ne 0 ] || [ -e /run/hostgate ] || [ -e /etc/hostgate ]; then
      echo "decoy: skipped (needs root and no /run/hostgate, /etc/hostgate on this machine)" >&2
      exit 0
    fi
    # From dist/ (npm test's pretest rebuilds it the same way): a daemon started through tsx is slow to listen.
    [ -f dist/hostgate.js ] || npm run build --silent >&2
    scratch=$(mktemp -d /tmp/hostgate-decoy-XXXXXX)
    mkdir -p /etc/hostgate
    printf '# Written by .ci/decoy.sh: a test that reads this file fails on the key below.\ndecoy_read_by_a_test: true\n' > /etc/hostgate/config.yaml
    printf 'daemon:\n  agent_group: root\n' > "$scratch/config.yaml"
    HOSTGATE_STATE_DIR="$scratch/state" HOSTGATE_CONFIG_DIR="$scratch/config" HOSTGATE_CHECKPOINT_COPY="$scratch/checkpoints.jsonl" \
      setsid node bin/hostgate.js daemon --config "$scratch/config.yaml" > "$scratch/daemon.log" 2>&1 < /dev/null &
    pid=$!
    printf 'pid=%s\nscratch=%s\n' "$pid" "$scratch" > "$marker"
    for _ in $(seq 1 300); do [ -S /run/hostgate/agent.sock ] && break; sleep 0.1; done
    if [ -S /run/hostgate/agent.sock ]; then echo "decoy: system daemon $pid on /run/hostgate, /etc/hostgate/config.yaml written" >&2
    else echo "decoy: the system daemon did not start:" >&2; cat "$scratch/daemon.log" >&2; fi
    ;;
  stop)
    [ -f "$marker" ] || exit 0
    # shellcheck disable=SC1090
    . "$marker"
    kill -TERM "$pid" 2>/dev/null
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null
    chattr -R -a "$scratch" 2>/dev/null
    rm -rf "$scratch" /run/hostgate /etc/hostgate "$marker"
    echo "decoy: stopped and removed" >&2
    ;;
  *) echo "usage: .ci/decoy.sh start|stop" >&2; exit 2 ;;
esac
