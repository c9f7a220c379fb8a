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

. Benchmarks/experiments/patched.sh
patched_setup serial-writes
build_patched serial-writes.patch
redis_setup

for round in $(seq "$rounds"); do
  echo "round $round (requests/s)"
  run_paid_in 1 X=0
  printf '%-34s %s\n' "registerd paid_in, writer thread" "$paid_rps"
  run_paid_in 1 REGISTERD_SERIAL=1
  printf '%-34s %s\n' "registerd paid_in, on the loop" "$paid_rps"
  printf '%-34s %s\n' "Redis SET (fsync always)" "$(redis_set_rps)"
done
