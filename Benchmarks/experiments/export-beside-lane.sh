#!/usr/bin/env bash
# What does a manager's catalog export do to a lane? A before/after measure for reads whose
# work grows with the store (docs/PERFORMANCE.md, "Experiments").
#
#   Benchmarks/experiments/export-beside-lane.sh [PRODUCTS] [REGISTERD...]
#
# Writes a catalog of PRODUCTS products (default 100000, the most a catalog may hold) and, for
# each registerd binary given (default: a release build of this checkout), starts it on that
# catalog and measures one lane (one client, one durable paid_in at a time, 4 s): first alone,
# then while another client asks for catalog_export again and again. It prints the lane's
# requests/s and latency percentiles both ways, how many exports were answered, and the lane's
# p99 beside the exports over its p99 alone (the ratio is this machine's noise cancelled: a
# lane that never waits for an export stays near 1).
set -euo pipefail
cd "$(dirname "$0")/../.."
products=${1:-100000}
shift || true

work=$(mktemp -d "${TMPDIR:-/tmp}/registerd-export-beside-lane.XXXXXX")
pid=""
exporter=""
cleanup() {
  for p in $exporter $pid; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

bins=("$@")
if [ ${#bins[@]} -eq 0 ]; then
  swift build -c release --product registerd >/dev/null
  bins=("$(swift build -c release --show-bin-path)/registerd")
fi
cc -O2 -Wall -Wextra -o "$work/loadclient" Benchmarks/loadclient/loadclient.c -lm
load="$work/loadclient"

awk -v n="$products" 'BEGIN {
  printf "{\"store\":{\"name\":\"Big Store\",\"currency\":\"USD\",\"tax\":{\"classes\":{\"standard\":\"7.5\"},\"default_class\":\"standard\"}},\n\"products\":[\n"
  for (i = 0; i < n; i++) {
    printf "{\"sku\":\"P%06d\",\"name\":\"Product %d\",\"description\":\"A product of the benchmark.\",\"category\":\"C%d\",\"price\":\"%d.99\",\"stock\":1000000}%s\n", i, i, i % 50, i % 90 + 1, (i < n - 1 ? "," : "")
  }
  print "]}"
}' >"$work/catalog.json"

field() { sed -n "s/.*$1=\\([0-9.]*\\).*/\\1/p"; }
lane='{"op":"paid_in","amount":"0.01","reason":"bench"}'

for bin in "${bins[@]}"; do
  rm -rf "$work/data" "$work/r.sock"
  "$bin" --socket "$work/r.sock" --data-dir "$work/data" --catalog "$work/catalog.json" \
    2>"$work/registerd.log" &
  pid=$!
  for _ in $(seq 600); do [ -S "$work/r.sock" ] && break; sleep 0.05; done
  alone=$("$load" --socket "$work/r.sock" --proto line --conns 1 --depth 1 --warmup 1 \
    --duration 4 -- "$lane" 2>/dev/null | tail -1)
  "$load" --socket "$work/r.sock" --proto line --conns 1 --depth 1 --warmup 0 --duration 7 \
    -- '{"op":"catalog_export"}' >"$work/exports.txt" 2>/dev/null &
  exporter=$!
  beside=$("$load" --socket "$work/r.sock" --proto line --conns 1 --depth 1 --warmup 1 \
    --duration 4 -- "$lane" 2>/dev/null | tail -1)
  wait "$exporter" 2>/dev/null || true
  exporter=""
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  pid=""
  exports=$(tail -1 "$work/exports.txt" | field replies)
  echo "$bin ($products products)"
  printf '  %-22s %8s %8s %8s %10s %10s\n' "lane (paid_in, 1 × 1)" "req/s" "p50 µs" "p99 µs" "p99.9 µs" "max µs"
  for row in "alone:$alone" "beside exports:$beside"; do
    label=${row%%:*}
    result=${row#*:}
    printf '  %-22s %8s %8s %8s %10s %10s\n' "$label" "$(field rps <<<"$result")" \
      "$(field p50_us <<<"$result")" "$(field p99_us <<<"$result")" \
      "$(field p999_us <<<"$result")" "$(field max_us <<<"$result")"
  done
  echo "  exports answered in 7 s: ${exports:-0}"
  awk -v a="$(field p99_us <<<"$alone")" -v b="$(field p99_us <<<"$beside")" \
    'BEGIN { if (a > 0) printf "  lane p99 beside exports / alone: %.2f\n", b / a }'
done
