#!/usr/bin/env bash
# The back-office export's rate: `register-cli export` of a generated history, in
# records per second, next to Python reading the same journal files with json.loads line by line
# (the floor any tool that reads the journal gets) in the same run, so a busy machine still gives
# a true ratio.
#
# Usage: Benchmarks/export.sh            DAYS=20 RECORDS=5000 PRODUCTS=1000 SEED=1
set -euo pipefail
cd "$(dirname "$0")/.."
days=${DAYS:-20}
records=${RECORDS:-5000}
products=${PRODUCTS:-1000}
seed=${SEED:-1}

swift build -c release --product register-cli >/dev/null
swift build -c release --product register-bench >/dev/null
bin=$(swift build -c release --show-bin-path)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$bin/register-bench" history --days "$days" --records-per-day "$records" \
  --products "$products" --seed "$seed" --to "$work/h" >/dev/null
data="$work/h/data"
[ -d "$data/journal" ] || data="$work/h"
total=$(cat "$data"/journal/*.ndjson | wc -l)
bytes=$(cat "$data"/journal/*.ndjson | wc -c)

now() { date +%s.%N; }
rate() { python3 -c "import sys; print(f'{int($total / ($2 - $1)):,}')"; }

start=$(now)
python3 -c '
import json, sys, glob
n = 0
for path in sorted(glob.glob(sys.argv[1] + "/journal/*.ndjson")):
    with open(path, "rb") as f:
        for line in f:
            json.loads(line)
            n += 1
' "$data"
python_end=$(now)

for format in ndjson sql; do
  s=$(now)
  "$bin/register-cli" export --data-dir "$data" --format "$format" --lane L1 >"$work/out.$format"
  e=$(now)
  eval "${format}_rate=\$(rate $s $e)"
  eval "${format}_rows=\$(wc -l <\"\$work/out.\$format\")"
done

echo "journal: $days days, $total records, $((bytes / 1048576)) MB"
echo "python3 json.loads:        $(rate "$start" "$python_end") records/s"
echo "export --format ndjson:    $ndjson_rate records/s ($ndjson_rows fact rows)"
echo "export --format sql:       $sql_rate records/s ($sql_rows lines)"
