#!/usr/bin/env bash
# Would registerd's durable paid_in be faster writing as Redis does, on the event loop itself?
# An experiment, not a benchmark of the product.
#
#   Benchmarks/experiments/serial-writes.sh [ROUNDS]
#
# Builds registerd from this checkout with serial-writes.patch applied (in a temporary git
# worktree; the checkout is not touched). With REGISTERD_SERIAL set, the patched daemon starts
# with no journal writer thread: each pass of the loop encodes, writes and fdatasyncs the
# group it staged, then sends the replies (Redis's appendfsync always cycle). Unset, the same
# binary is the real register, with its writer thread.
#
# It then runs 50 clients × 1 paid_in (compare-redis.sh's scenario 2) against both, and SET
# against Redis (appendfsync always) for scale, ROUNDS times (default 3), 3 seconds each, and
# prints requests/s. See docs/PERFORMANCE.md, "All four ratios met, on an Intel machine".
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-3}

. Benchmarks/require.sh
. Benchmarks/redis.sh
require redis-server redis-server

work=$(mktemp -d "${TMPDIR:-/tmp}/registerd-serial-writes.XXXXXX")
pid=""
redis_pid=""
. Benchmarks/experiments/patched.sh
cleanup() {
  patched_cleanup
  if [ -n "$redis_pid" ]; then kill "$redis_pid" 2>/dev/null || true; wait "$redis_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
build_patched serial-writes.patch

start_redis "$work/redis"
for _ in $(seq 100); do [ -S "$work/redis/redis.sock" ] && break; sleep 0.05; done

for round in $(seq "$rounds"); do
  echo "round $round (requests/s)"
  run_paid_in 1 X=0
  printf '%-34s %s\n' "registerd paid_in, writer thread" "$paid_rps"
  run_paid_in 1 REGISTERD_SERIAL=1
  printf '%-34s %s\n' "registerd paid_in, on the loop" "$paid_rps"
  printf '%-34s %s\n' "Redis SET (fsync always)" "$("$work/loadclient" --socket "$work/redis/redis.sock" \
    --proto resp --conns 50 --depth 1 --warmup 1 --duration 3 -- SET key value 2>/dev/null |
    sed -n 's/.*rps=\([0-9]*\).*/\1/p')"
done
