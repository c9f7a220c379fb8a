#!/usr/bin/env bash
# Instructions per request, counted (not timed): for comparing two builds on a noisy machine.
#
#   Benchmarks/instructions.sh [--count N] [--against BIN] [REQUEST_LINE]
#
# Runs `register-bench inprocess` (a request line through the daemon's steps, no sockets or
# disk; see docs/PERFORMANCE.md) under valgrind's callgrind, which counts the instructions
# executed, and prints per request: the whole run's (the difference between N and 2N requests,
# so start-up cancels out), the loop's side (`RegisterService.submit`: decode, decide, apply,
# stage, reply) and the journal writer's side (`Journal.write(batch:)`: encode, hash, chain).
# The same build gives the same counts run after run (to within a few instructions), where
# the timings on a shared VM move by a tenth; a change that saves 300 instructions a request
# shows. With --against BIN (another build's register-bench, e.g. kept from before a change)
# it counts both. Installs valgrind with apt-get when missing.
#
# Under valgrind the CPU's SHA extensions are not offered, so the writer's count includes the
# portable SHA-256 (about 10,000 instructions a record); the loop's count is what it is
# natively. Default request: a durable paid_in, the request the Redis comparison measures.
set -euo pipefail
cd "$(dirname "$0")/.."

count=20000
against=""
line='{"op":"paid_in","amount":"0.01","reason":"bench"}'
while [ $# -gt 0 ]; do
  case "$1" in
    --count) count=$2; shift 2 ;;
    --against) against=$2; shift 2 ;;
    -*)
      echo "usage: $0 [--count N] [--against BIN] [REQUEST_LINE]" >&2
      exit 2
      ;;
    *) line=$1; shift ;;
  esac
done

. Benchmarks/require.sh
require valgrind valgrind

swift build -c release --product register-bench >/dev/null
bin="$(swift build -c release --show-bin-path)/register-bench"
work=$(mktemp -d "${TMPDIR:-/tmp}/registerd-instructions.XXXXXX")
trap 'rm -rf "$work"' EXIT

# total instructions of one run of BIN with COUNT requests, into FILE
run() {
  valgrind --tool=callgrind --callgrind-out-file="$3" "$1" inprocess --count "$2" "$line" \
    >/dev/null 2>"$3.log" || { cat "$3.log" >&2; exit 1; }
  sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$3.log"
}

# inclusive instructions of the first function whose name contains PATTERN, in FILE
inclusive() {
  local value
  value=$(callgrind_annotate --inclusive=yes "$2" 2>/dev/null | grep -F -- "$1" | head -1 |
    awk '{ gsub(",", "", $1); print $1 }')
  if [ -z "$value" ]; then
    echo "instructions.sh: no function matching $1 in the profile (renamed?)" >&2
    exit 1
  fi
  echo "$value"
}

measure() {
  local name=$1 binary=$2
  local small large
  small=$(run "$binary" "$count" "$work/$name.1")
  large=$(run "$binary" $((count * 2)) "$work/$name.2")
  local loop writer
  loop=$(inclusive 'ServiceC6submityySayAA12IncomingLineVGF ' "$work/$name.2")
  writer=$(inclusive 'JournalC5write5batchAA11SystemErrorVSgSayAA0C5WriteVGz_tF ' "$work/$name.2")
  awk -v n="$name" -v s="$small" -v l="$large" -v c="$count" -v lo="$loop" -v w="$writer" \
    'BEGIN { printf "%-10s %10.0f %10.0f %10.0f\n", n, (l - s) / c, lo / (2 * c), w / (2 * c) }'
}

echo "request: $line ($count and $((count * 2)) requests, groups of 50)"
printf '%-10s %10s %10s %10s\n' build total loop writer
measure this "$bin"
if [ -n "$against" ]; then measure against "$against"; fi
