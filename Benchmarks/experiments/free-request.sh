#!/usr/bin/env bash
# How fast could a durable paid_in be if its request path cost nothing? An experiment, not a
# benchmark of the product: a bound on what making the loop's per-request work cheaper can buy.
#
#   Benchmarks/experiments/free-request.sh [ROUNDS]
#
# Builds registerd from this checkout with free-request.patch applied (in a temporary git
# worktree; the checkout is not touched). With REGISTERD_FREE_PAID_IN set, the patched daemon
# answers the benchmark's paid_in line without decoding, deciding, applying or encoding a reply:
# it stages one fixed paid_in record (so the journal writer encodes, chains, writes and
# fdatasyncs as for a real one, and the reply still waits for that) and sends a canned reply.
# What is left is the daemon's skeleton: the socket reads and writes, the event loop, group
# commit and the writer. Unset, the same binary is the real register.
#
# It then runs 50 clients × 1 paid_in (compare-redis.sh's scenario 2) against the real request
# path, the free one and Redis's SET with appendfsync always, ROUNDS times (default 3), 3
# seconds each, and prints requests/s. See docs/PERFORMANCE.md, "Experiments".
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-3}

. Benchmarks/experiments/patched.sh
patched_setup free-request
build_patched free-request.patch
redis_setup

registerd() { # label, then environment assignments
  local label=$1
  shift
  run_paid_in 1 "$@"
  printf '%-28s %s\n' "$label" "$paid_rps"
}

for round in $(seq "$rounds"); do
  echo "round $round (requests/s)"
  registerd "registerd paid_in" X=0
  registerd "registerd paid_in, free path" REGISTERD_FREE_PAID_IN=1
  printf '%-28s %s\n' "Redis SET (fsync always)" "$(redis_set_rps)"
done
