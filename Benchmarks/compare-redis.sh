#!/usr/bin/env bash
# registerd and Redis side by side, in one run, with one load client.
#
#   Benchmarks/compare-redis.sh [--duration SECONDS] [--warmup SECONDS] [--rounds N]
#                               [--no-profile] [--perf-data FILE]
#
# Builds registerd in release mode and compiles Benchmarks/loadclient/loadclient.c. Starts
# registerd on a temporary Unix socket and data directory (every mutation fsynced before its
# reply) and redis-server on a Unix socket in the same temporary directory (same disk), with
# appendonly yes, appendfsync always, no RDB snapshots and no TCP port. Installs redis-server
# with apt-get when it is missing. Then, for each scenario, runs the same load client against
# registerd and against Redis, and prints a table and the ratios against the targets
# docs/PERFORMANCE.md sets. With --rounds N (default 3) every scenario is measured N times, registerd and Redis
# alternating, and each ratio is judged on its median: on a shared virtual machine one
# 5-second measurement can be off by a factor of two (the disk's and the host's other load). Last, unless --no-profile, profiles registerd under scenario 1 with `perf record -g`
# and prints the top symbols (--perf-data FILE keeps the recording, for `perf report -i FILE`
# against the same build). Results go to stdout; docs/PERFORMANCE.md has a recorded run.
# Takes about 4 minutes after the build with the defaults (5 s per measurement, 1 s warm-up,
# 3 rounds).
set -euo pipefail
cd "$(dirname "$0")/.."

duration=5
warmup=1
rounds=3
profile=1
perf_data=""
while [ $# -gt 0 ]; do
  case "$1" in
    --duration) duration=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --no-profile) profile=0; shift ;;
    --perf-data) perf_data=$2; shift 2 ;;
    *)
      echo "usage: $0 [--duration SECONDS] [--warmup SECONDS] [--rounds N] [--no-profile] [--perf-data FILE]" >&2
      exit 2
      ;;
  esac
done

. Benchmarks/require.sh
. Benchmarks/redis.sh
require redis-server redis-server

swift build -c release --product registerd >/dev/null
bin=$(swift build -c release --show-bin-path)

work=$(mktemp -d "${TMPDIR:-/tmp}/registerd-vs-redis.XXXXXX")
registerd_pid=""
redis_pid=""
load_pid=""
cleanup() {
  for pid in $load_pid $registerd_pid $redis_pid; do
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$work"
}
trap cleanup EXIT

cc -O2 -Wall -Wextra -o "$work/loadclient" Benchmarks/loadclient/loadclient.c -lm
load="$work/loadclient"
rsock="$work/registerd.sock"
ksock="$work/redis/redis.sock"

# registerd: its own socket and data directory, default settings (group commit, fdatasync).
"$bin/registerd" --socket "$rsock" --data-dir "$work/registerd-data" --catalog Data/products.json \
  2>"$work/registerd.log" &
registerd_pid=$!

# Redis: only the Unix socket (port 0: nothing listens on TCP), its files next to registerd's.
start_redis "$work/redis"

for _ in $(seq 1 250); do
  if [ -S "$rsock" ] && [ -S "$ksock" ] &&
    "$load" --socket "$rsock" --proto line --once -- '{"op":"hello"}' >/dev/null 2>&1 &&
    "$load" --socket "$ksock" --proto resp --once -- PING >/dev/null 2>&1; then
    break
  fi
  sleep 0.04
done
"$load" --socket "$rsock" --proto line --once -- '{"op":"hello"}' >/dev/null
"$load" --socket "$ksock" --proto resp --once -- PING >/dev/null
if command -v ss >/dev/null && ss -ltnp 2>/dev/null | grep -q "pid=$redis_pid,"; then
  echo "redis-server listens on TCP; refusing to benchmark" >&2
  exit 1
fi

cpu=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo 2>/dev/null || true)
commit=$(git rev-parse --short HEAD)
git diff --quiet HEAD -- Sources Package.swift || commit="$commit (with uncommitted changes)"
echo "date:     $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "machine:  $(nproc) cores${cpu:+, $cpu}, $(uname -sr), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "disk:     $(df -T "$work" | awk 'NR==2 {print $1 " (" $2 ")"}') for both data directories"
echo "commit:   $commit"
echo "swift:    $(swift --version 2>/dev/null | head -1)"
echo "redis:    $(redis-server --version | cut -d' ' -f1-3)"
echo "runs:     ${warmup} s warm-up, ${duration} s measured, per line; ${rounds} round(s)"
echo

# measure NAME SOCKET PROTO CONNS DEPTH REQUEST... — runs the load client, prints its numbers,
# and keeps them as NAME_rps, NAME_p50 … for the ratios.
measure() {
  local name=$1 socket=$2 proto=$3 conns=$4 depth=$5
  shift 5
  local line
  line=$("$load" --socket "$socket" --proto "$proto" --conns "$conns" --depth "$depth" \
    --warmup "$warmup" --duration "$duration" -- "$@" 2>"$work/load.err") || {
    cat "$work/load.err" >&2
    echo "$name: the load client failed (errors in replies, or no connection)" >&2
    exit 1
  }
  local key value
  for field in ${line#result }; do
    key=${field%%=*}
    value=${field#*=}
    printf -v "${name}_${key}" '%s' "$value"
  done
}

row() { # row LABEL NAME CONNS DEPTH
  local rps="${2}_rps" p50="${2}_p50_us" p90="${2}_p90_us" p99="${2}_p99_us" p999="${2}_p999_us"
  printf '| %-38s | %5s | %10s | %8s | %8s | %8s | %8s |\n' "$1" "$3x$4" "${!rps}" \
    "${!p50}" "${!p90}" "${!p99}" "${!p999}"
}

# 3 needs an order of 5 lines, and a Redis value as long as that order's reply line.
for sku in SOCK-3PK CAP-BSB TOTE-CNV PRINT-4X6 SCARF-WOOL; do
  "$load" --socket "$rsock" --proto line --once -- "{\"op\":\"add\",\"sku\":\"$sku\"}" >/dev/null
done
order_bytes=$(("$(
  "$load" --socket "$rsock" --proto line --once -- '{"op":"order"}' | wc -c
)" - 1))
value=$(head -c "$order_bytes" /dev/zero | tr '\0' x)
"$load" --socket "$ksock" --proto resp --once -- SET order "$value" >/dev/null

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }'; }
verdict() { # verdict VALUE OP TARGET
  awk -v v="$1" -v t="$3" -v op="$2" 'BEGIN { ok = (op == ">=" ? v >= t : v <= t); print (ok ? "met" : "not met") }'
}
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
r1s=()
r2s=()
r3s=()
r4s=()
for round in $(seq 1 "$rounds"); do
  # 1. hello vs PING, 50 connections × 16 pipelined.
  measure hello "$rsock" line 50 16 '{"op":"hello"}'
  measure ping "$ksock" resp 50 16 PING
  # 2. a durable change: paid_in (journaled, fsynced) vs SET with appendfsync always.
  measure paid "$rsock" line 50 1 '{"op":"paid_in","amount":"0.01","reason":"bench"}'
  measure set "$ksock" resp 50 1 SET key value
  # 3. a read of a 5-line order vs GET of a value as long as that reply line.
  measure order "$rsock" line 50 1 '{"op":"order"}'
  measure get "$ksock" resp 50 1 GET order
  # 4. one client, one request at a time: round-trip latency.
  measure hello1 "$rsock" line 1 1 '{"op":"hello"}'
  measure ping1 "$ksock" resp 1 1 PING

  echo "Round $round of $rounds. Latencies in µs (send to reply, per request); load: connections x requests in flight on each."
  echo
  echo "| scenario                               | load  |      req/s |      p50 |      p90 |      p99 |    p99.9 |"
  echo "|----------------------------------------|------:|-----------:|---------:|---------:|---------:|---------:|"
  row 'registerd `hello`' hello 50 16
  row 'Redis `PING`' ping 50 16
  row 'registerd `paid_in` (durable)' paid 50 1
  row 'Redis `SET` (appendfsync always)' set 50 1
  row "registerd \`order\` (5 lines, ${order_bytes} B)" order 50 1
  row "Redis \`GET\` (${order_bytes} B value)" get 50 1
  row 'registerd `hello`, one client' hello1 1 1
  row 'Redis `PING`, one client' ping1 1 1
  echo
  r1s+=("$(ratio "$hello_rps" "$ping_rps")")
  r2s+=("$(ratio "$paid_rps" "$set_rps")")
  r3s+=("$(ratio "$order_rps" "$get_rps")")
  r4s+=("$(ratio "$hello1_p50_us" "$ping1_p50_us")")
done

r1=$(median "${r1s[@]}")
r2=$(median "${r2s[@]}")
r3=$(median "${r3s[@]}")
r4=$(median "${r4s[@]}")
echo "| ratio registerd / Redis                      | rounds | median | target            |         |"
echo "|----------------------------------------------|--------|-------:|------------------:|---------|"
printf '| 1. hello vs PING, 50 × 16, req/s             | %s | %6s | ≥ 0.25            | %-7s |\n' "${r1s[*]}" "$r1" "$(verdict "$r1" ">=" 0.25)"
printf '| 2. paid_in vs SET (fsync), 50 × 1, req/s     | %s | %6s | ≥ 1.0             | %-7s |\n' "${r2s[*]}" "$r2" "$(verdict "$r2" ">=" 1.0)"
printf '| 3. order vs GET, 50 × 1, req/s               | %s | %6s | ≥ 0.6             | %-7s |\n' "${r3s[*]}" "$r3" "$(verdict "$r3" ">=" 0.6)"
printf '| 4. hello vs PING, one client, p50 latency    | %s | %6s | ≤ 1.3             | %-7s |\n' "${r4s[*]}" "$r4" "$(verdict "$r4" "<=" 1.3)"
echo

if [ "$profile" -eq 1 ]; then
  if ! perf record -q -o "$work/probe.data" -- true >/dev/null 2>&1; then
    echo "perf record does not work here; skipping the profile"
    exit 0
  fi
  echo "== profile: registerd under scenario 1 (hello, 50 × 16), perf record -g, ${duration} s"
  "$load" --socket "$rsock" --proto line --conns 50 --depth 16 --warmup 0.5 \
    --duration "$(awk -v d="$duration" 'BEGIN { print d + 1.5 }')" -- '{"op":"hello"}' \
    >/dev/null 2>&1 &
  load_pid=$!
  sleep 0.5
  perf record -q -g -p "$registerd_pid" -o "$work/perf.data" -- sleep "$duration" >/dev/null 2>&1
  wait "$load_pid" || true
  load_pid=""
  [ -z "$perf_data" ] || cp "$work/perf.data" "$perf_data"
  demangle() { if command -v swift >/dev/null; then swift demangle --simplified; else cat; fi; }
  # perf pads each name to its mangled width; drop the padding and anything after it.
  tidy() { sed -E 's/^(.*\] [^ ]+( {1,2}[^ ]+)*) {3,}.*$/\1/' | sed -E 's/ +$//' | cut -c1-150; }
  echo
  echo "-- by shared object (self time)"
  perf report -i "$work/perf.data" --stdio --no-children --sort dso --percent-limit 1 2>/dev/null |
    grep -E '^ +[0-9]' | head -12
  echo
  echo "-- top symbols (self time)"
  perf report -i "$work/perf.data" --stdio --no-children -g none --sort symbol --percent-limit 0.7 \
    2>/dev/null | grep -E '^ +[0-9]' | head -40 | demangle | tidy
  echo
  echo "-- top symbols including callees (children)"
  perf report -i "$work/perf.data" --stdio --children -g none --sort symbol --percent-limit 5 \
    2>/dev/null | grep -E '^ +[0-9]' | head -40 | demangle | tidy
fi
