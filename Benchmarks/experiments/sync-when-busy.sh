#!/usr/bin/env bash
# What does a full CPU do to fdatasync on this machine? An experiment about the machine, not
# about registerd: it explains the durable paid_in's p99.9 (docs/PERFORMANCE.md, "What limits
# a lane").
#
#   Benchmarks/experiments/sync-when-busy.sh [SYNCS]
#
# 1. A C loop writes SYNCS groups of 4.5 KB (default 6000) into a file over zeros written
#    ahead 256 KiB at a time, as registerd's journal writer does, and fdatasyncs each one. It
#    prints the mean sync, how many took over 2 ms and over 5 ms, the longest, and the median
#    time between syncs of over 5 ms. It runs with no other load, then beside one and two
#    busy processes (`yes > /dev/null`, which never sleep).
# 2. Redis, SET with appendfsync always under 50 clients × 1 (compare-redis.sh's scenario 2),
#    alone and beside one busy process: requests/s and its latency percentiles.
set -euo pipefail
cd "$(dirname "$0")/../.."
syncs=${1:-6000}

. Benchmarks/require.sh
. Benchmarks/redis.sh
require redis-server redis-server

work=$(mktemp -d "${TMPDIR:-/tmp}/registerd-sync-when-busy.XXXXXX")
redis_pid=""
hogs=()
stop_hogs() {
  for p in "${hogs[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  hogs=()
}
cleanup() {
  stop_hogs
  if [ -n "$redis_pid" ]; then kill "$redis_pid" 2>/dev/null || true; wait "$redis_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
start_hogs() {
  for _ in $(seq "$1"); do
    yes >/dev/null &
    hogs+=($!)
  done
  sleep 0.5
}

cat >"$work/sync.c" <<'C'
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}
static int compare(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}
int main(int argc, char **argv) {
  if (argc != 3) return 2;
  int n = atoi(argv[1]);
  const size_t group = 4500, chunk = 256 * 1024;
  int fd = open(argv[2], O_RDWR | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) { perror("open"); return 1; }
  char *bytes = malloc(group), *zeros = calloc(1, chunk);
  double *slowAt = malloc(sizeof(double) * n);
  memset(bytes, 'x', group);
  off_t end = 0, zeroed = 0;
  int over2 = 0, over5 = 0;
  double total = 0, longest = 0, start = now_ms();
  for (int i = 0; i < n; i++) {
    if (end + (off_t)group > zeroed) {
      if (pwrite(fd, zeros, chunk, zeroed) != (ssize_t)chunk) { perror("pwrite"); return 1; }
      zeroed += chunk;
    }
    if (pwrite(fd, bytes, group, end) != (ssize_t)group) { perror("pwrite"); return 1; }
    end += group;
    double before = now_ms();
    if (fdatasync(fd) != 0) { perror("fdatasync"); return 1; }
    double took = now_ms() - before;
    total += took;
    if (took > longest) longest = took;
    if (took > 2) over2++;
    if (took > 5) slowAt[over5++] = before - start;
  }
  double median = 0;
  if (over5 > 1) {
    for (int i = 0; i + 1 < over5; i++) slowAt[i] = slowAt[i + 1] - slowAt[i];
    qsort(slowAt, over5 - 1, sizeof(double), compare);
    median = slowAt[(over5 - 1) / 2];
  }
  printf("%8.0f %8d %8d %9.1f %14.0f\n", total * 1000 / n, over2, over5, longest, median);
  return 0;
}
C
cc -O2 -Wall -Wextra -o "$work/sync" "$work/sync.c"
cc -O2 -Wall -Wextra -o "$work/loadclient" Benchmarks/loadclient/loadclient.c -lm

echo "fdatasync of a 4.5 KB group, $syncs times"
printf '%-18s %8s %8s %8s %9s %14s\n' "beside" "mean µs" "> 2 ms" "> 5 ms" "max ms" "> 5 ms every"
for busy in 0 1 2; do
  start_hogs "$busy"
  printf '%-18s ' "$busy busy process(es)"
  "$work/sync" "$syncs" "$work/journal"
  stop_hogs
  rm -f "$work/journal"
done

echo
echo "Redis SET, appendfsync always, 50 clients × 1, 3 s"
start_redis "$work/redis"
for _ in $(seq 100); do [ -S "$work/redis/redis.sock" ] && break; sleep 0.05; done
for busy in 0 1; do
  start_hogs "$busy"
  printf '%-18s ' "$busy busy process(es)"
  "$work/loadclient" --socket "$work/redis/redis.sock" --proto resp --conns 50 --depth 1 \
    --warmup 1 --duration 3 -- SET key value 2>/dev/null | sed -n 's/^result //p'
  stop_hogs
done
