#!/usr/bin/env bash
# Fuzz the request path (decoder, decide, apply) with libFuzzer and AddressSanitizer.
#   Fuzz/run.sh [RUNS] [extra libFuzzer flags…]     default 1,000,000 runs
# The engine's sources and Fuzz/RequestFuzzer.swift are compiled into one fuzzing binary; the
# seed corpus is the request examples from docs/PROTOCOL.md plus a few hostile lines. Crashes are
# written to .build/fuzz/crash-*; rerun one with: .build/fuzz/request-fuzzer .build/fuzz/crash-…
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-1000000}
shift || true
out=.build/fuzz
mkdir -p "$out/corpus" "$out/CSHA256"
# The engine's SHA256 imports the C target CSHA256: its object, and a module map for swiftc
# (SwiftPM writes its own for the package build).
clang -O2 -std=c11 -fsanitize=address -I Sources/CSHA256/include -c Sources/CSHA256/CSHA256.c \
  -o "$out/CSHA256.o"
printf 'module CSHA256 {\n  header "%s/Sources/CSHA256/include/CSHA256.h"\n  export *\n}\n' \
  "$PWD" > "$out/CSHA256/module.modulemap"
swiftc -O -swift-version 6 -sanitize=fuzzer,address -parse-as-library -module-name RegisterFuzz \
  -package-name registerd -I "$out/CSHA256" \
  $(find Sources/RegisterEngine -name '*.swift' | sort) Fuzz/RequestFuzzer.swift \
  "$out/CSHA256.o" -o "$out/request-fuzzer"
# Seeds: every JSON request line in the protocol document, and hostile shapes.
grep -ho '{"op":[^`]*}' docs/PROTOCOL.md | sort -u | awk -v d="$out/corpus" '{ f = d "/seed-" NR; print > f; close(f) }'
printf '%s\n' '{"op":"stock_adjust","sku":"TEE","delta":-9223372036854775808,"reason":"x"}' > "$out/corpus/seed-int64"
printf '%s\n' '{"op":"add","sku":"TEE","qty":3}' '{"op":"discount","line":1,"percent":"20"}' \
  '{"op":"discount","percent":"20"}' '{"op":"tender","type":"cash","amount":"100"}' > "$out/corpus/seed-sale"
SWIFT_BACKTRACE=enable=no exec "$out/request-fuzzer" -runs="$runs" -max_len=4096 -timeout=10 -artifact_prefix="$out/" \
  -print_final_stats=1 "$@" "$out/corpus"
