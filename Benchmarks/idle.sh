#!/usr/bin/env bash
# What idle connections cost the clients that are working.
#
#   Benchmarks/idle.sh [--idle N] [--requests R]
#
# A lane's register has a few busy clients and may have many connected doing nothing (a
# customer display left open, a script that never hung up). Each pass of registerd's event
# loop should cost what happened, not what is connected. This starts registerd (release build)
# on a temporary socket and data directory under valgrind's callgrind, which counts the
# instructions executed, and has one client send R `hello` requests, first alone and then
# with N idle connections open beside it (default 900 and 3,000). It prints the loop's
# instructions per request (`Server.run`, inclusive) in both cases and their ratio, and exits
# non-zero when the idle connections make each request cost more than twice as much. Then,
# without valgrind, it times the same client's round trips both ways (noisy on a shared VM;
# the counts are the figure). Installs valgrind with apt-get when missing; needs python3 to
# hold the idle connections open.
set -euo pipefail
cd "$(dirname "$0")/.."

idle=900
requests=3000
while [ $# -gt 0 ]; do
  case "$1" in
    --idle) idle=$2; shift 2 ;;
    --requests) requests=$2; shift 2 ;;
    *)
      echo "usage: $0 [--idle N] [--requests R]" >&2
      exit 2
      ;;
  esac
done

. Benchmarks/require.sh
require valgrind valgrind
# Room for the idle connections (registerd serves at most 1000 clients).
ulimit -n $((idle + 256))

swift build -c release --product registerd >/dev/null
bin=$(swift build -c release --show-bin-path)
work=$(mktemp -d "${TMPDIR:-/tmp}/registerd-idle.XXXXXX")
cc -O2 -Wall -Wextra -o "$work/loadclient" Benchmarks/loadclient/loadclient.c -lm
daemon_pid=""
idle_pid=""
cleanup() {
  for pid in $idle_pid $daemon_pid; do
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$work"
}
trap cleanup EXIT

# Opens N connections to SOCKET and holds them until killed.
hold_idle() {
  python3 -c '
import socket, sys, time
held = []
for _ in range(int(sys.argv[2])):
    s = socket.socket(socket.AF_UNIX)
    s.connect(sys.argv[1])
    held.append(s)
print("open", flush=True)
time.sleep(3600)
' "$1" "$2" >"$work/idle.out" &
  idle_pid=$!
  for _ in $(seq 600); do
    grep -q open "$work/idle.out" 2>/dev/null && return
    sleep 0.1
  done
  echo "idle.sh: the idle connections did not open" >&2
  exit 1
}

# Starts registerd (under PREFIX, a command or nothing) on a fresh data directory.
start() {
  rm -rf "$work/data" "$work/registerd.sock"
  $1 "$bin/registerd" --socket "$work/registerd.sock" --data-dir "$work/data" \
    --catalog Data/products.json 2>"$work/registerd.log" &
  daemon_pid=$!
  for _ in $(seq 600); do
    [ -S "$work/registerd.sock" ] && return
    sleep 0.1
  done
  echo "idle.sh: registerd did not start" >&2
  cat "$work/registerd.log" >&2
  exit 1
}

stop() {
  [ -n "$idle_pid" ] && { kill "$idle_pid"; wait "$idle_pid" 2>/dev/null || true; }
  idle_pid=""
  kill -TERM "$daemon_pid"
  wait "$daemon_pid" 2>/dev/null || true
  daemon_pid=""
}

# Instructions per request of the loop with N idle connections.
counted() {
  start "valgrind --tool=callgrind --callgrind-out-file=$work/callgrind.$1"
  [ "$1" -gt 0 ] && hold_idle "$work/registerd.sock" "$1"
  "$work/loadclient" --socket "$work/registerd.sock" --proto line --conns 1 --depth 1 \
    --warmup 0 --duration 60 --max-requests "$requests" -- '{"op":"hello"}' >/dev/null 2>&1
  stop
  callgrind_annotate --inclusive=yes "$work/callgrind.$1" 2>/dev/null |
    grep -F 'RegisterServer0B0C3runyyF ' | head -1 |
    awk -v n="$requests" '{ gsub(",", "", $1); printf "%.0f\n", $1 / n }'
}

# Round trips per second and p50 with N idle connections (native).
timed() {
  start ""
  [ "$1" -gt 0 ] && hold_idle "$work/registerd.sock" "$1"
  "$work/loadclient" --socket "$work/registerd.sock" --proto line --conns 1 --depth 1 \
    --warmup 0.5 --duration 3 -- '{"op":"hello"}' 2>/dev/null |
    sed 's/.*rps=\([0-9]*\).*p50_us=\([0-9.]*\).*/\1 req\/s, p50 \2 µs/'
  stop
}

alone=$(counted 0)
crowded=$(counted "$idle")
echo "one client, $requests hello requests; the loop's instructions per request (callgrind):"
echo "  alone:                 $alone"
echo "  with $idle idle:         $crowded"
ratio=$(awk -v a="$alone" -v c="$crowded" 'BEGIN { printf "%.2f", c / a }')
echo "  ratio:                 $ratio (must be at most 2)"
echo "the same client's round trips, timed (noisy on a shared machine):"
echo "  alone:                 $(timed 0)"
echo "  with $idle idle:         $(timed "$idle")"
awk -v r="$ratio" 'BEGIN { exit !(r <= 2) }' || {
  echo "idle.sh: idle connections make every request cost $ratio times as much" >&2
  exit 1
}
