#!/usr/bin/env bash
# Server CPU per durable request, registerd (each thread) beside Redis: the figures behind
# docs/PERFORMANCE.md, "Experiments" and "What limits a lane".
#
#   Benchmarks/experiments/cpu-split.sh [ROUNDS]
#
# Builds registerd in release mode, starts it and redis-server (appendfsync always) as
# compare-redis.sh does, and for each round runs compare-redis.sh's scenario 2 (50 clients × 1
# durable request: registerd's paid_in, Redis's SET) for 3 s against each. It reads the
# server's per-thread utime and stime from /proc/PID/task/*/stat before and after, and the
# machine's idle time from /proc/stat, and prints microseconds of CPU per request.
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-2}

. Benchmarks/require.sh
. Benchmarks/redis.sh
require redis-server redis-server

swift build -c release --product registerd >/dev/null
bin=$(swift build -c release --show-bin-path)/registerd
work=$(mktemp -d "${TMPDIR:-/tmp}/registerd-cpu-split.XXXXXX")
pid=""
redis_pid=""
cleanup() {
  for p in $pid $redis_pid; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
cc -O2 -Wall -Wextra -o "$work/loadclient" Benchmarks/loadclient/loadclient.c -lm
load="$work/loadclient"
hz=$(getconf CLK_TCK)

# Each thread's name, utime and stime, one line a thread.
threads() { for t in /proc/"$1"/task/*; do awk '{ print $1 "-" $2, $14, $15 }' "$t/stat"; done | sort; }
idle() { awk '/^cpu / { print $5 + $6 }' /proc/stat; }

measure() { # LABEL PID SOCKET PROTO REQUEST...
  local label=$1 server=$2 socket=$3 proto=$4
  shift 4
  "$load" --socket "$socket" --proto "$proto" --conns 50 --depth 1 --warmup 0 --duration 1 \
    -- "$@" >/dev/null 2>"$work/load.err"
  threads "$server" >"$work/before"
  local idle0 idle1 result replies
  idle0=$(idle)
  result=$("$load" --socket "$socket" --proto "$proto" --conns 50 --depth 1 --warmup 0 \
    --duration 3 -- "$@" 2>"$work/load.err")
  idle1=$(idle)
  threads "$server" >"$work/after"
  replies=$(sed -n 's/.*replies=\([0-9]*\).*/\1/p' <<<"$result")
  join "$work/before" "$work/after" | awk -v label="$label" -v n="$replies" -v hz="$hz" \
    -v idle=$((idle1 - idle0)) -v cores="$(nproc)" '
    { u += $4 - $2; s += $5 - $3; d = ($4 + $5) - ($2 + $3)
      if (d > 0) rows[NR] = sprintf("    %-28s %6.2f µs", $1, d / hz * 1e6 / n) }
    END {
      printf "%-10s %7d req/s   server CPU %.2f µs/request (user %.2f, kernel %.2f)   machine idle %.0f %%\n",
        label, n / 3, (u + s) / hz * 1e6 / n, u / hz * 1e6 / n, s / hz * 1e6 / n, idle / hz / 3 / cores * 100
      for (i in rows) print rows[i]
    }'
}

"$bin" --socket "$work/r.sock" --data-dir "$work/data" --catalog Data/products.json \
  2>"$work/registerd.log" &
pid=$!
start_redis "$work/redis"
for _ in $(seq 200); do
  [ -S "$work/r.sock" ] && [ -S "$work/redis/redis.sock" ] && break
  sleep 0.05
done
echo "per thread: CPU per request (the thread's name after its id)"
for round in $(seq "$rounds"); do
  echo "round $round"
  measure registerd "$pid" "$work/r.sock" line '{"op":"paid_in","amount":"0.01","reason":"bench"}'
  measure Redis "$redis_pid" "$work/redis/redis.sock" resp SET key value
done
