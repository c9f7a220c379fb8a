# Shared by the experiments that build registerd with a patch and drive it with compare-redis.sh's
# scenario 2 (50 clients × 1 durable paid_in). Source it from the repository's root, then call
# `patched_setup NAME` first: it makes the scratch directory `work` and removes it at exit, with
# the daemon, Redis (when `redis_setup` started it) and the worktree.

# patched_setup NAME: the scratch directory `work` (registerd-NAME.XXXXXX), and the exit trap.
patched_setup() {
  work=$(mktemp -d "${TMPDIR:-/tmp}/registerd-$1.XXXXXX")
  pid=""
  redis_pid=""
  trap patched_exit EXIT
}

patched_exit() {
  for p in ${pid:-} ${redis_pid:-}; do
    kill "$p" 2>/dev/null || true
    wait "$p" 2>/dev/null || true
  done
  git worktree remove --force "$work/tree" >/dev/null 2>&1 || true
  rm -rf "$work"
}

# redis_setup: redis-server (appendfsync always) on $work/redis/redis.sock, installed when
# missing (Benchmarks/redis.sh, Benchmarks/require.sh).
redis_setup() {
  . Benchmarks/require.sh
  . Benchmarks/redis.sh
  require redis-server redis-server
  start_redis "$work/redis"
  for _ in $(seq 100); do [ -S "$work/redis/redis.sock" ] && break; sleep 0.05; done
}

# redis_set_rps: Redis's durable SET, 50 × 1 for 3 s after 1 s, in requests/s (the scale the
# experiments print beside registerd's paid_in).
redis_set_rps() {
  "$work/loadclient" --socket "$work/redis/redis.sock" --proto resp --conns 50 --depth 1 \
    --warmup 1 --duration 3 -- SET key value 2>/dev/null | sed -n 's/.*rps=\([0-9]*\).*/\1/p'
}

# build_patched PATCH [COMMIT]: registerd as of COMMIT (default HEAD) with PATCH applied, in a
# temporary git worktree under $work (the checkout is not touched); sets `bin`. Also compiles
# the load client as $work/loadclient.
build_patched() {
  git worktree add --detach "$work/tree" "${2:-HEAD}" >/dev/null 2>&1
  git -C "$work/tree" apply "$PWD/Benchmarks/experiments/$1"
  (cd "$work/tree" && swift build -c release --product registerd >/dev/null)
  bin="$work/tree/.build/release/registerd"
  cc -O2 -Wall -Wextra -o "$work/loadclient" Benchmarks/loadclient/loadclient.c -lm
}

# run_paid_in WARMUP ENV...: starts $bin with the environment assignments ENV on a fresh data
# directory, runs 50 × 1 durable paid_in for 3 s after WARMUP seconds, stops it, and sets
# `paid_rps` to the load client's requests/s (the daemon's log stays in $work/registerd.log).
run_paid_in() {
  local warmup=$1
  shift
  rm -rf "$work/data" "$work/r.sock"
  env "$@" "$bin" --socket "$work/r.sock" --data-dir "$work/data" --catalog Data/products.json \
    2>"$work/registerd.log" &
  pid=$!
  for _ in $(seq 100); do [ -S "$work/r.sock" ] && break; sleep 0.05; done
  local result
  result=$("$work/loadclient" --socket "$work/r.sock" --proto line --conns 50 --depth 1 \
    --warmup "$warmup" --duration 3 -- '{"op":"paid_in","amount":"0.01","reason":"bench"}' \
    2>/dev/null)
  paid_rps=$(sed -n 's/.*rps=\([0-9]*\).*/\1/p' <<<"$result")
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  pid=""
}
