#!/usr/bin/env bash
# Reproducible benchmark of registerd: throughput and latency of real requests over the Unix
# socket with N concurrent clients (every mutation fsynced before its reply, group commit),
# then how long the resulting journal takes to verify, replay and recover from.
#
#   Benchmarks/run.sh [SALES_PER_CLIENT] [LINES_PER_SALE]
#
# Builds in release mode. Results go to stdout; see docs/PERFORMANCE.md for a recorded run.
set -euo pipefail
cd "$(dirname "$0")/.."
sales=${1:-200}
lines=${2:-4}

swift build -c release --product registerd >/dev/null
swift build -c release --product register-cli >/dev/null
swift build -c release --product register-bench >/dev/null
bin=$(swift build -c release --show-bin-path)

work=$(mktemp -d /tmp/registerd-bench.XXXXXX)
socket="$work/s.sock"
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT

start_daemon() {
  "$bin/registerd" --socket "$socket" --data-dir "$work/data" --catalog Data/products.json \
    2>>"$work/registerd.log" &
  pid=$!
  for _ in $(seq 1 200); do
    [ -S "$socket" ] && "$bin/register-cli" --socket "$socket" hello >/dev/null 2>&1 && return
    sleep 0.02
  done
  echo "registerd did not start" >&2
  exit 1
}

echo "machine: $(nproc) cores, $(uname -sr), $(df -h "$work" | awk 'NR==2 {print $1}')"
echo "swift:   $(swift --version 2>/dev/null | head -1)"
echo
start_daemon
for clients in 1 4 16 32; do
  echo "== $clients client(s), $sales sales each, $lines adds + 1 cash tender per sale"
  "$bin/register-bench" --socket "$socket" --clients "$clients" --sales "$sales" --lines "$lines"
  echo
done
kill "$pid"
wait "$pid" 2>/dev/null || true

# The journal's segment files (docs/JOURNAL.md); the zeros written ahead in the open segment
# are not records, so they are left out of the size.
records=$(cat "$work"/data/journal/*.ndjson | wc -l)
bytes=$(cat "$work"/data/journal/*.ndjson | tr -d '\000' | wc -c)
echo "== journal: $records records, $((bytes / 1048576)) MB"
t0=$(date +%s%N)
"$bin/register-cli" verify --data-dir "$work/data" >/dev/null
t1=$(date +%s%N)
"$bin/register-cli" replay --data-dir "$work/data" --json >/dev/null
t2=$(date +%s%N)
start_daemon
t3=$(date +%s%N)
echo "verify (checksums + hash chain)   $(((t1 - t0) / 1000000)) ms"
echo "replay (every receipt + report)   $(((t2 - t1) / 1000000)) ms"
echo "restart (recover to listening)    $(((t3 - t2) / 1000000)) ms"
