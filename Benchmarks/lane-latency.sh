#!/usr/bin/env bash
# The lane screen's latency: from a scan's Enter to its line on the screen, with registerd
# busy serving 16 other clients on the same machine.
#
#   Benchmarks/lane-latency.sh [--scans N] [--load read|write|none]
#
# Builds registerd and register-cli in release mode and compiles Benchmarks/loadclient. Starts
# registerd on a temporary socket and data directory (every change fsynced before its reply),
# then 16 load clients, each with one request in flight all along: `paid_in` (durable changes,
# each a journal record, an fsync and a live event the lane reads — the default, `write`) or
# `order` (`read`). Meanwhile Benchmarks/lane_latency.py runs `register-cli lane` on an 80x24
# pseudo-terminal, scans N codes (default 300) one after another, and times each from the
# Enter to the new line on its model of the screen; it first measures a line through a
# pseudo-terminal and back (`cat`) as this machine's baseline. docs/PERFORMANCE.md has a run.
set -euo pipefail
cd "$(dirname "$0")/.."

scans=300
load_kind=write
while [ $# -gt 0 ]; do
  case "$1" in
    --scans) scans=$2; shift 2 ;;
    --load) load_kind=$2; shift 2 ;;
    *) echo "usage: $0 [--scans N] [--load read|write|none]" >&2; exit 2 ;;
  esac
done
case "$load_kind" in
  write) request='{"op":"paid_in","amount":"0.01","reason":"load"}' ;;
  read) request='{"op":"order"}' ;;
  none) request="" ;;
  *) echo "--load is read, write or none" >&2; exit 2 ;;
esac

. Benchmarks/require.sh
require python3 python3

swift build -c release --product registerd >/dev/null
swift build -c release --product register-cli >/dev/null
bin=$(swift build -c release --show-bin-path)

work=$(mktemp -d "${TMPDIR:-/tmp}/registerd-lane.XXXXXX")
registerd_pid=""
load_pid=""
cleanup() {
  for pid in $load_pid $registerd_pid; do
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$work"
}
trap cleanup EXIT

cc -O2 -Wall -Wextra -o "$work/loadclient" Benchmarks/loadclient/loadclient.c -lm
load="$work/loadclient"
socket="$work/registerd.sock"
"$bin/registerd" --socket "$socket" --data-dir "$work/data" --catalog Data/products.json \
  2>"$work/registerd.log" &
registerd_pid=$!
for _ in $(seq 1 250); do
  [ -S "$socket" ] && "$load" --socket "$socket" --proto line --once -- '{"op":"hello"}' \
    >/dev/null 2>&1 && break
  sleep 0.04
done

cpu=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo 2>/dev/null || true)
echo "date:     $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "machine:  $(nproc) cores${cpu:+, $cpu}, $(uname -sr), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "commit:   $(git rev-parse --short HEAD)"
echo "load:     ${load_kind}${request:+: 16 clients, 1 in flight each: $request}"
echo
if [ -n "$request" ]; then
  # (At most 60 s of load: the scans take a few seconds.)
  "$load" --socket "$socket" --proto line --conns 16 --depth 1 --warmup 0 --duration 60 \
    -- "$request" >"$work/load.out" 2>&1 &
  load_pid=$!
  sleep 1
  if ! kill -0 "$load_pid" 2>/dev/null; then
    echo "the load client stopped: $(cat "$work/load.out")" >&2
    exit 1
  fi
fi
python3 Benchmarks/lane_latency.py "$bin/register-cli" "$socket" --scans "$scans"
if [ -n "$load_pid" ]; then
  kill -INT "$load_pid" 2>/dev/null || true
  wait "$load_pid" 2>/dev/null || true
  load_pid=""
  tail -1 "$work/load.out" | sed 's/^/load:     /'
fi
