#!/usr/bin/env bash
# Feeds one lane's journal into PostgreSQL, exactly once: resumes after the lane's cursor
# (lanes.last_seq), which every transaction commits together with the facts it loads, so a
# feeder killed at any point and started again loads each record once.
#
# Usage: feed-postgres.sh LANE DATA_DIR DATABASE_URL [--follow]
#   LANE          the lane's id in the back office (e.g. store-12-lane-3)
#   DATA_DIR      the lane's registerd data directory (read only; registerd may be running)
#   DATABASE_URL  a libpq connection string, e.g. postgresql://feeder@backoffice/sales
#   --follow      keep loading records as registerd makes them durable, until stopped
# Environment: REGISTER_CLI (default: register-cli on PATH), PSQL (default: psql).
set -euo pipefail

if [ $# -lt 3 ] || [ $# -gt 4 ]; then
  sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
lane=$1
data_dir=$2
url=$3
follow=()
if [ $# -eq 4 ]; then
  [ "$4" = "--follow" ] || { echo "feed-postgres: unknown option $4" >&2; exit 2; }
  follow=(--follow)
fi
cli=${REGISTER_CLI:-register-cli}
psql=${PSQL:-psql}
here=$(cd "$(dirname "$0")" && pwd)

"$psql" "$url" -X -q -v ON_ERROR_STOP=1 -f "$here/schema.sql" >/dev/null
after=$(printf '%s\n' "SELECT coalesce(max(last_seq), 0) FROM lanes WHERE lane = :'lane';" |
  "$psql" "$url" -X -q -tA -v ON_ERROR_STOP=1 -v lane="$lane")
echo "feed-postgres: lane $lane from seq $after" >&2
"$cli" export --data-dir "$data_dir" --after "$after" --format sql --lane "$lane" "${follow[@]}" |
  "$psql" "$url" -X -q -v ON_ERROR_STOP=1 >/dev/null
