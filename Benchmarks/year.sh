#!/usr/bin/env bash
# A year on one lane: generates a 1-day and a DAYS-day
# history (RECORDS records a day, PRODUCTS products; `register-bench history`), caches them, and
# times in one run:
#   - start-up to listening: exec of registerd to its first `hello` reply, on a copy of the
#     1-day and of the DAYS-day data directory (median of 3 runs each);
#   - the daemon's memory after start on the DAYS-day data (VmRSS and VmHWM);
#   - `register-cli replay --day N` of the middle day (from its receipt archive, and with
#     --from-journal from the journal records) and `register-cli verify` of the whole journal
#     (the chain, and with --events every event read too);
#   - the floor any tool gets on the same files: python3 reading them with json.loads line by
#     line, and sha256sum over the same bytes;
# and prints them against the targets docs/PERFORMANCE.md gives.
#
#   Benchmarks/year.sh
#
# Settings (environment):
#   DAYS=365 RECORDS=5000 PRODUCTS=10000 SEED=1   the history
#   REGISTERD_YEAR_CACHE=/tmp/registerd-year     where generated histories are kept between
#                                                runs (one directory per setting; delete it
#                                                to regenerate)
#   RUNS=3                                       start-ups per data directory
#
# A 365 × 5,000 history is about 1.8 million records and 700 MB; generating it takes about a
# minute, and the cache needs that much space twice while a copy is being timed. Needs
# python3 (on Debian/Ubuntu: apt-get install python3) and sha256sum (coreutils).
set -euo pipefail
cd "$(dirname "$0")/.."

days=${DAYS:-365}
records=${RECORDS:-5000}
products=${PRODUCTS:-10000}
seed=${SEED:-1}
runs=${RUNS:-3}
cache=${REGISTERD_YEAR_CACHE:-/tmp/registerd-year}

if ! command -v python3 >/dev/null; then
  echo "year.sh needs python3 (the json.loads floor and the start-up timer); install it with" >&2
  echo "your package manager, e.g. apt-get install python3" >&2
  exit 1
fi
command -v sha256sum >/dev/null || { echo "year.sh needs sha256sum (coreutils)" >&2; exit 1; }

swift build -c release --product registerd >/dev/null
swift build -c release --product register-cli >/dev/null
swift build -c release --product register-bench >/dev/null
bin=$(swift build -c release --show-bin-path)

work=$(mktemp -d /tmp/registerd-year-run.XXXXXX)
trap 'rm -rf "$work"' EXIT

now_ns() { date +%s%N; }

# history DAYS: the cached history directory of DAYS days (generated when missing). A history
# is complete once its directory has its final name: it is generated under a temporary one.
history() {
  local dir="$cache/d$1-r$records-p$products-s$seed"
  if [ ! -f "$dir/catalog.json" ]; then
    mkdir -p "$cache"
    rm -rf "$dir.partial"
    echo "generating $1 day(s) × $records records, $products products into $dir" >&2
    "$bin/register-bench" history --days "$1" --records-per-day "$records" \
      --products "$products" --seed "$seed" --to "$dir.partial" >"$work/generate-$1.txt"
    cat "$work/generate-$1.txt" >&2
    mv "$dir.partial" "$dir"
  fi
  echo "$dir"
}

# journal_files DATA_DIR: the journal's segment files in chain order (journal/*.ndjson sort by
# name in journal order; see docs/JOURNAL.md).
journal_files() {
  local files=()
  shopt -s nullglob
  files=("$1"/journal/*.ndjson)
  shopt -u nullglob
  printf '%s\n' "${files[@]}"
}

# The start-up timer: starts registerd, polls its socket with `hello` every millisecond, and
# prints the seconds from exec to the first successful reply, then VmRSS and VmHWM in kB.
startup_timer='
import os, socket, subprocess, sys, time
registerd, data, catalog, sock, log = sys.argv[1:6]
began = time.monotonic()
daemon = subprocess.Popen(
    [registerd, "--socket", sock, "--data-dir", data, "--catalog", catalog],
    stdout=subprocess.DEVNULL, stderr=open(log, "ab"))
try:
    while True:
        if daemon.poll() is not None:
            sys.exit("registerd exited with %d; see %s" % (daemon.returncode, log))
        if time.monotonic() - began > 600:
            sys.exit("registerd did not answer within 10 minutes")
        try:
            with socket.socket(socket.AF_UNIX) as s:
                s.connect(sock)
                s.sendall(b"{\"op\":\"hello\"}\n")
                if b"\"ok\":true" in s.makefile("rb").readline():
                    break
        except OSError:
            time.sleep(0.001)
    elapsed = time.monotonic() - began
    status = dict(line.split(":", 1) for line in open("/proc/%d/status" % daemon.pid))
    kb = lambda key: status[key].split()[0]
    print("%.4f %s %s" % (elapsed, kb("VmRSS"), kb("VmHWM")))
finally:
    daemon.terminate()
    daemon.wait()
'

# startup HISTORY_DIR: "median_seconds rss_kb hwm_kb" over $runs start-ups, each on a fresh copy
# of the data directory (start-up may write to it; the cache stays as generated).
startup() {
  local times=() rss=0 hwm=0 run line
  for run in $(seq 1 "$runs"); do
    rm -rf "$work/copy"
    cp -a "$1/data" "$work/copy"
    sync
    line=$(python3 -c "$startup_timer" "$bin/registerd" "$work/copy" "$1/catalog.json" \
      "$work/s.sock" "$work/registerd.log")
    times+=("${line%% *}")
    read -r _ rss hwm <<<"$line"
  done
  rm -rf "$work/copy"
  local median
  median=$(printf '%s\n' "${times[@]}" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
  echo "$median $rss $hwm"
}

# seconds COMMAND...: wall time of a command in seconds (its output discarded).
seconds() {
  local t0 t1
  t0=$(now_ns)
  "$@" >/dev/null
  t1=$(now_ns)
  awk -v ns=$((t1 - t0)) 'BEGIN { printf "%.3f", ns / 1e9 }'
}

# median_seconds COMMAND...: the median wall time of 5 runs of a command.
median_seconds() {
  local times=() run
  for run in 1 2 3 4 5; do times+=("$(seconds "$@")"); done
  printf '%s\n' "${times[@]}" | sort -n | awk '{ v[NR] = $1 } END { print v[3] }'
}

small=$(history 1)
large=$(history "$days")
mapfile -t files < <(journal_files "$large/data")
total_records=$(cat "${files[@]}" | wc -l)
total_bytes=$(cat "${files[@]}" | wc -c)
middle=$(((days + 1) / 2))
# The middle day's records: from the record after day middle-1's close to day middle's close.
day_records=$(awk -v day="$middle" '
  /"type":"day_closed"/ { closes++; if (closes == day - 1) first = NR + 1; if (closes == day) { print NR - first + 1; exit } }
  BEGIN { first = 1 }' "${files[@]}")

echo
echo "machine: $(nproc) cores, $(uname -sr), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "swift:   $(swift --version 2>/dev/null | head -1)"
echo "history: $days days × $records records, $products products (seed $seed): $total_records records, $((total_bytes / 1048576)) MB in ${#files[@]} file(s)"
echo

line=$(startup "$small")
read -r start_small _ _ <<<"$line"
line=$(startup "$large")
read -r start_large rss_kb hwm_kb <<<"$line"
# replay --day N of a closed day reads its receipt archive and the day book of the first
# snapshot after it; with --from-journal it works the day out again from the snapshot before it
# and the journal records from there to the day's close.
replay_s=$(median_seconds "$bin/register-cli" replay --data-dir "$large/data" --day "$middle")
journal_replay_s=$(median_seconds "$bin/register-cli" replay --data-dir "$large/data" \
  --day "$middle" --from-journal)
# What each replay read: where from, the files, and (from the journal) how many records.
replay_source() {
  "$bin/register-cli" --json replay --data-dir "$large/data" --day "$middle" "$@" | python3 -c '
import json, sys
r = json.load(sys.stdin)["replayed"]
print(r["from"], r.get("records", 0), r.get("archive") or "-", r.get("snapshot") or "-")'
}
read -r replay_from _ replay_archive replay_book < <(replay_source)
read -r _ replayed _ replay_snapshot < <(replay_source --from-journal)
# The files replay read (the archive and the snapshot it took the day book from).
replay_read=()
if [ "$replay_from" = archive ]; then
  [ "$replay_archive" != - ] && replay_read+=("$replay_archive")
  replay_read+=("$replay_book")
fi
replay_bytes=0
[ ${#replay_read[@]} -gt 0 ] && replay_bytes=$(cat "${replay_read[@]}" | wc -c)
# The segments the journal replay applies: after the snapshot's record, up to the middle day's
# end.
replay_files=()
snapshot_seq=$(basename "$replay_snapshot" | sed -n 's/.*-seq0*\([0-9]*\)\.json$/\1/p')
for file in "${files[@]}"; do
  name=$(basename "$file")
  day=$((10#$(echo "$name" | sed -n 's/^day\([0-9]*\)-.*/\1/p')))
  first=$((10#$(echo "$name" | sed -n 's/.*-seq\([0-9]*\)\.ndjson$/\1/p')))
  if [ "$first" -gt "${snapshot_seq:-0}" ] && [ "$day" -le "$middle" ]; then
    replay_files+=("$file")
  fi
done
verify_s=$(seconds "$bin/register-cli" verify --data-dir "$large/data")
# verify --events also reads every record and its event as registerd does (the full scan).
verify_events_s=$(seconds "$bin/register-cli" verify --data-dir "$large/data" --events)
# The floor any tool gets: json.loads of every line of FILES, as a command.
json_loads='
import json, sys
for name in sys.argv[1:]:
    with open(name, "rb") as f:
        for line in f:
            json.loads(line)
'
python_s=$(seconds python3 -c "$json_loads" "${files[@]}")
sha_s=$(seconds sh -c 'cat "$@" | sha256sum' sh "${files[@]}")
# The same Python loop as a command on the files each replay reads (its start-up counted, as
# replay's is): the comparison on the same files, beside the whole-year rate above.
python_read_s=0
[ ${#replay_read[@]} -gt 0 ] && python_read_s=$(median_seconds python3 -c "$json_loads" "${replay_read[@]}")
python_day_s=$(median_seconds python3 -c "$json_loads" "${replay_files[@]}")

awk -v days="$days" -v middle="$middle" -v runs="$runs" \
  -v s1="$start_small" -v sN="$start_large" -v rss="$rss_kb" -v hwm="$hwm_kb" \
  -v records="$total_records" -v bytes="$total_bytes" -v day_records="$day_records" \
  -v replay="$replay_s" -v journal_replay="$journal_replay_s" -v replay_from="$replay_from" \
  -v replay_bytes="$replay_bytes" -v python_read="$python_read_s" \
  -v verify="$verify_s" -v verify_events="$verify_events_s" -v python="$python_s" -v sha="$sha_s" \
  -v replayed="$replayed" -v python_day="$python_day_s" -v day_files="${#replay_files[@]}" '
  function met(ok) { return ok ? "met" : "NOT met" }
  function rate(n, s) { return s > 0 ? n / s : 0 }
  function row(name, value, target) { printf "%-40s %16s   %s\n", name, value, target }
  BEGIN {
    mb = bytes / 1048576
    py = rate(records, python)
    py_mb = rate(mb, python)
    # replay reads what it needs for one closed day: the day'"'"'s receipt archive and the day
    # book of a snapshot after it. Its rate is those bytes over the whole run time, against
    # python3 on the same files (start-up counted on both sides) and against python3'"'"'s
    # whole-year rate (its start-up spread over 20 s).
    rp_mb = rate(replay_bytes / 1048576, replay)
    same = replay > 0 ? python_read / replay : 0
    # replay --from-journal: the journal records from the snapshot before the day to its
    # close, over the whole run time.
    rp = rate(replayed, journal_replay)
    row("measurement", "result", "target")
    row("start-up to listening, 1 day", sprintf("%.3f s", s1), "(median of " runs ")")
    row("start-up to listening, " days " days", sprintf("%.3f s", sN), \
      sprintf("< 1 s and <= 1.5 x 1 day (%.3f s): %s", 1.5 * s1, met(sN < 1 && sN <= 1.5 * s1)))
    row("registerd VmRSS after start", sprintf("%.1f MB", rss / 1024), \
      "<= 150 MB: " met(rss / 1024 <= 150))
    row("registerd VmHWM after start", sprintf("%.1f MB", hwm / 1024), "(peak)")
    row("replay --day " middle, sprintf("%.3f s", replay), \
      sprintf("(median of 5; from the %s: %.1f MB read)", replay_from, replay_bytes / 1048576))
    row("python3 on the files replay reads", sprintf("%.3f s", python_read), \
      sprintf(">= 2 x its rate: %.2f x, %s", same, met(replay_from == "archive" && same >= 2)))
    row("replay, MB read / s", sprintf("%.1f MB/s", rp_mb), \
      sprintf(">= 2 x python whole year (%.1f MB/s): %s", 2 * py_mb, \
        met(replay_from == "archive" && rp_mb >= 2 * py_mb)))
    row("replay --day " middle " --from-journal", sprintf("%.3f s", journal_replay), \
      sprintf("(day %d has %d records; %d read from its snapshot on)", middle, day_records, replayed))
    row("  journal records / s", sprintf("%.0f rec/s", rp), \
      sprintf("(python whole year x 2: %.0f; %.2f x)", 2 * py, rp / py))
    row("  python3 on the segments it applies", sprintf("%.3f s", python_day), \
      sprintf("(%d segment(s), start-up counted: %.2f x its rate)", day_files, python_day / journal_replay))
    row("verify, whole journal", sprintf("%.3f s", verify), "")
    row("verify, records / s", sprintf("%.0f rec/s", rate(records, verify)), "")
    row("verify, MB / s", sprintf("%.1f MB/s", rate(mb, verify)), \
      sprintf("as fast as it gets; sha256sum: %.1f MB/s", rate(mb, sha)))
    row("verify --events, whole journal", sprintf("%.3f s", verify_events), \
      sprintf("(%.1f MB/s: every record and event read too)", rate(mb, verify_events)))
    row("python3 json.loads line by line", sprintf("%.0f rec/s", py), \
      sprintf("(%.3f s, %.1f MB/s)", python, py_mb))
    row("sha256sum over the same bytes", sprintf("%.1f MB/s", rate(mb, sha)), sprintf("(%.3f s)", sha))
  }'
