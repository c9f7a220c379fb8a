#!/usr/bin/env bash
# Where a durable paid_in's time goes between the loop, the writer and the disk: an experiment,
# not a benchmark of the product.
#
#   Benchmarks/experiments/writer-cycle.sh [ROUNDS] [SPIN_NS]
#
# Builds registerd as of cb872fb, the commit the patch was written for (the journal writer has
# changed since), with writer-cycle.patch applied (in a temporary git worktree; the checkout is
# not touched). The patch times each group the journal writer takes
# (encoding, pwrite, fdatasync, and how long the writer waited for the loop) and prints it
# every 2,000 groups, and adds two knobs read from the environment:
# REGISTERD_STAND_IN_SYNC_US=N sleeps N µs instead of each fdatasync (a disk that never
# varies, so that a change of a few per cent shows), and REGISTERD_LOOP_SPIN_NS=N busy-waits
# N ns on the event loop per request line (as if handling a request cost that much more).
#
# It then runs 50 clients × 1 durable paid_in (the load of compare-redis.sh's scenario 2)
# against four settings in turn, ROUNDS times (default 3), each for 3 seconds:
# the real disk, the real disk with the spin, a 200 µs stand-in sync, and the stand-in with the
# spin (SPIN_NS, default 3000). It prints requests/s and the writer's last cycle line for each.
# See docs/PERFORMANCE.md, "What bounds a durable paid_in".
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-3}
spin=${2:-3000}

. Benchmarks/experiments/patched.sh
patched_setup writer-cycle
build_patched writer-cycle.patch cb872fb

run() { # label, then environment assignments
  local label=$1
  shift
  run_paid_in 0.5 "$@"
  printf '%-22s rps=%s\n' "$label" "$paid_rps"
  grep 'writer-cycle:' "$work/registerd.log" | tail -1 | sed 's/^/    /' || true
}

for round in $(seq "$rounds"); do
  echo "round $round"
  run "disk" X=0
  run "disk + spin" REGISTERD_LOOP_SPIN_NS="$spin"
  run "stand-in sync" REGISTERD_STAND_IN_SYNC_US=200
  run "stand-in sync + spin" REGISTERD_STAND_IN_SYNC_US=200 REGISTERD_LOOP_SPIN_NS="$spin"
done
