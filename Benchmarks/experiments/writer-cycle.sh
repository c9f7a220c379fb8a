#!/usr/bin/env bash
# Where a durable paid_in's time goes between the loop, the writer and the disk: an experiment,
# not a benchmark of the product.
#
#   Benchmarks/experiments/writer-cycle.sh [ROUNDS] [SPIN_NS]
#
# Builds registerd from this checkout with writer-cycle.patch applied (in a temporary git
# worktree; the checkout is not touched). The patch times each group the journal writer takes
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

work=$(mktemp -d "${TMPDIR:-/tmp}/registerd-writer-cycle.XXXXXX")
pid=""
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  git worktree remove --force "$work/tree" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

git worktree add --detach "$work/tree" HEAD >/dev/null 2>&1
git -C "$work/tree" apply "$PWD/Benchmarks/experiments/writer-cycle.patch"
(cd "$work/tree" && swift build -c release --product registerd >/dev/null)
bin="$work/tree/.build/release/registerd"
cc -O2 -Wall -Wextra -o "$work/loadclient" Benchmarks/loadclient/loadclient.c -lm

run() { # label, then environment assignments
  local label=$1
  shift
  rm -rf "$work/data" "$work/r.sock"
  env "$@" "$bin" --socket "$work/r.sock" --data-dir "$work/data" --catalog Data/products.json \
    2>"$work/registerd.log" &
  pid=$!
  for _ in $(seq 100); do [ -S "$work/r.sock" ] && break; sleep 0.05; done
  local result
  result=$("$work/loadclient" --socket "$work/r.sock" --proto line --conns 50 --depth 1 \
    --warmup 0.5 --duration 3 -- '{"op":"paid_in","amount":"0.01","reason":"bench"}' 2>/dev/null)
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  pid=""
  printf '%-22s %s\n' "$label" "$(sed -n 's/.*\(rps=[0-9]*\).*/\1/p' <<<"$result")"
  grep 'writer-cycle:' "$work/registerd.log" | tail -1 | sed 's/^/    /' || true
}

for round in $(seq "$rounds"); do
  echo "round $round"
  run "disk" X=0
  run "disk + spin" REGISTERD_LOOP_SPIN_NS="$spin"
  run "stand-in sync" REGISTERD_STAND_IN_SYNC_US=200
  run "stand-in sync + spin" REGISTERD_STAND_IN_SYNC_US=200 REGISTERD_LOOP_SPIN_NS="$spin"
done
