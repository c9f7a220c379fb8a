#!/usr/bin/env bash
# Fuzz registerd's engine with libFuzzer and AddressSanitizer.
#   Fuzz/run.sh [request|journal] [RUNS] [extra libFuzzer flags…]     default: request, 1,000,000 runs
# request: the request path (decoder, decide, apply), Fuzz/RequestFuzzer.swift; its seeds are
#   the request examples from docs/PROTOCOL.md plus a few hostile lines.
# journal: what a journal record may contain (replayed as recovery replays it, then written as a
#   snapshot and read back, then served), Fuzz/JournalFuzzer.swift; its seeds are the records of
#   a short history written by register-bench and of the journal README.md's walkthrough leaves
#   (Scripts/readme-check.sh), cut into runs of 24.
# The engine's sources and the target's file are compiled into one fuzzing binary. Crashes are
# written to .build/fuzz/crash-*; rerun one with: .build/fuzz/TARGET-fuzzer .build/fuzz/crash-…
set -euo pipefail
cd "$(dirname "$0")/.."
target=request
case "${1:-}" in
  request | journal) target=$1; shift ;;
esac
runs=${1:-1000000}
shift || true
out=.build/fuzz
corpus="$out/corpus-$target"
[ "$target" = request ] && corpus="$out/corpus"
mkdir -p "$corpus" "$out/CSHA256"
# The engine's SHA256 imports the C target CSHA256: its object, and a module map for swiftc
# (SwiftPM writes its own for the package build).
clang -O2 -std=c11 -fsanitize=address -I Sources/CSHA256/include -c Sources/CSHA256/CSHA256.c \
  -o "$out/CSHA256.o"
printf 'module CSHA256 {\n  header "%s/Sources/CSHA256/include/CSHA256.h"\n  export *\n}\n' \
  "$PWD" > "$out/CSHA256/module.modulemap"
swiftc -O -swift-version 6 -sanitize=fuzzer,address -parse-as-library -module-name RegisterFuzz \
  -package-name registerd -I "$out/CSHA256" \
  $(find Sources/RegisterEngine -name '*.swift' | sort) \
  "Fuzz/$(tr '[:lower:]' '[:upper:]' <<<"${target:0:1}")${target:1}Fuzzer.swift" \
  "$out/CSHA256.o" -o "$out/$target-fuzzer"
if [ "$target" = journal ]; then
  # Seeds: journals written by the real code, each cut into runs of records. The fuzzer starts
  # from Data/products.json's catalog, which the walkthrough's journal starts with; the
  # history's runs keep the store and catalog records that start its journal.
  swift build --product registerd >/dev/null
  swift build --product register-bench >/dev/null
  bin=$(swift build --show-bin-path)
  seeds=$(mktemp -d "${TMPDIR:-/tmp}/registerd-fuzz-seeds.XXXXXX")
  trap 'rm -rf "$seeds"' EXIT
  "$bin/register-bench" history --days 3 --records-per-day 300 --products 6 --to "$seeds/history" >/dev/null
  # README.md's walkthrough rings up sales and returns, adds operators, customers, products
  # and gift cards, and closes a day: its journal holds most kinds of record.
  walkthrough=$(Scripts/readme-check.sh --no-test --keep | sed -n 's/^scratch directory: //p')
  [ -n "$walkthrough" ] || { echo "fuzz: Scripts/readme-check.sh failed" >&2; exit 1; }
  mv "$walkthrough" "$seeds/readme"
  for source in history:history/data readme:readme/.registerd; do
    journal="$seeds/${source#*:}/journal"
    cat "$journal"/* | tr -d '\000' | python3 -c '
import json, sys
records = [json.loads(line) for line in sys.stdin if line.strip()]
keep = ("type", "data", "operator", "approved_by")
lines = [json.dumps({k: r[k] for k in keep if k in r}, separators=(",", ":")) for r in records]
start = lines[:2] if sys.argv[2] == "history" else []
for n, i in enumerate(range(2, len(lines), 24)):
    with open("%s/%s-%d" % (sys.argv[1], sys.argv[2], n), "w") as f:
        f.write("\n".join(start + lines[i:i + 24]) + "\n")
' "$corpus" "${source%%:*}"
  done
  rm -rf "$seeds"
  trap - EXIT
  exec env SWIFT_BACKTRACE=enable=no "$out/journal-fuzzer" -runs="$runs" -max_len=16384 -timeout=10 \
    -artifact_prefix="$out/journal-" -print_final_stats=1 "$@" "$corpus"
fi
# Seeds: every JSON request line in the protocol document, and hostile shapes.
grep -ho '{"op":[^`]*}' docs/PROTOCOL.md | sort -u | awk -v d="$corpus" '{ f = d "/seed-" NR; print > f; close(f) }'
printf '%s\n' '{"op":"stock_adjust","sku":"TEE","delta":-9223372036854775808,"reason":"x"}' > "$corpus/seed-int64"
printf '%s\n' '{"op":"add","sku":"TEE","qty":3}' '{"op":"discount","line":1,"percent":"20"}' \
  '{"op":"discount","percent":"20"}' '{"op":"tender","type":"cash","amount":"100"}' > "$corpus/seed-sale"
SWIFT_BACKTRACE=enable=no exec "$out/request-fuzzer" -runs="$runs" -max_len=4096 -timeout=10 -artifact_prefix="$out/" \
  -print_final_stats=1 "$@" "$corpus"
