#!/usr/bin/env bash
# Runs README.md's examples top to bottom as a new user would, then `swift test`, so the README's
# promise (its examples run on a fresh clone and leave nothing that breaks the tests) stays true.
#
# Every line that starts with `$ ` inside a ```sh block is a command. They run in order as a new
# user would type them, starting in the repository root: the README's own first lines put the
# built programs on PATH, make a scratch directory and go there (so `.registerd` and every file
# an example writes land there, not in the repository), and start registerd in the background.
# Commands that change the shell (`export`, `cd`, `NAME=…`, `alias`, a job started with `&`)
# run in this script's shell, so later commands see what they set; the others in a subshell.
# The registerd an example starts with `&` must answer within 10 s; it is stopped at the end.
# Set for them: REGISTER_SOCKET (a short temporary socket, which the README's default path
# `/tmp/registerd-$(id -u).sock` stands for), REGISTERD_FIXED_TIME (receipts come out as the
# README shows them) and TMPDIR (the README's scratch directory is made inside this script's).
# An alias becomes a function, so that commands run by a new shell see it too. The examples
# take numbers from replies with jq, which is needed. Each command must exit 0, except those
# marked with a comment:
#   `# refused: …`     must exit 1 (the register refuses it, as the README says)
#   `… until Ctrl-C`   must still be running after a few seconds; it then gets SIGINT
#   `# needs PROGRAM`  is skipped, with a note, when PROGRAM is not installed
# A plain ``` block after an sh block is that block's output: it must appear verbatim in what
# the sh block's last command printed. A line in an sh block right after a command that is
# neither a command nor a comment is a line that command prints (`...` or `…` stand for any
# text in it).
# Then registerd is stopped, and `git status --ignored` must be as it was: an example that
# writes into the checkout fails the check, even where .gitignore would hide the file. Then
# `swift test` runs.
#
# Usage: Scripts/readme-check.sh [--no-test] [--keep] [--strict]
#   --no-test  skip `swift test`
#   --keep     keep the scratch directory (it is kept anyway when something fails)
#   --strict   an example whose `# needs PROGRAM` is not installed fails instead of being skipped
# .ci/run runs it with --no-test --strict on its fresh clone, before `swift test`.
set -uo pipefail

run_tests=1
keep=0
strict=0
for argument in "$@"; do
  case "$argument" in
    --no-test) run_tests=0 ;;
    --keep) keep=1 ;;
    --strict) strict=1 ;;
    -h | --help)
      sed -n '2,/^set -uo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *)
      echo "readme-check: unknown option $argument (try --help)" >&2
      exit 2
      ;;
  esac
done

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo" || exit 1
readme="$repo/README.md"

fail() {
  echo "readme-check: $*" >&2
  exit 1
}

command -v jq >/dev/null || fail "the README's examples need jq (apt-get install jq)"

echo "== build"
swift build || fail "swift build failed"
bin=$(swift build --show-bin-path) || fail "swift build --show-bin-path failed"

# Ignored files too: .gitignore must not hide a file an example wrote into the checkout.
checkout_status() { git -C "$repo" status --porcelain --ignored; }
status_before=$(checkout_status)

# Short path: a Unix socket path must fit in about 100 bytes.
work=$(mktemp -d /tmp/readme-check.XXXXXX) || fail "cannot make a scratch directory"
sock="$work/registerd.sock"
daemon_pid=
finish() {
  if [ -n "$daemon_pid" ] && kill -0 "$daemon_pid" 2>/dev/null; then
    kill -TERM "$daemon_pid" 2>/dev/null
    wait "$daemon_pid" 2>/dev/null
  fi
}
trap finish EXIT

# --- the commands, in order -------------------------------------------------------------------
commands=()  # each `$ ` line, without the prompt
expected=()  # expected[i]: output the command i must print (a plain block after its sh block)
printed=()   # printed[i]: lines command i must print, one pattern a line (`...` is anything)
fence=""     # "sh", "plain", "other" inside a block; "" outside
last_sh_command=-1 # the last command so far
block_command=-1   # the last command so far in this block
previous_block=""
block_text=""
while IFS= read -r line || [ -n "$line" ]; do
  if [[ "$line" == '```'* ]]; then
    if [ -z "$fence" ]; then
      case "${line#'```'}" in
        sh) fence=sh ;;
        "") fence=plain ;;
        *) fence=other ;;
      esac
      block_text=""
      block_command=-1
    else
      if [ "$fence" = plain ] && [ "$previous_block" = sh ] && [ "$last_sh_command" -ge 0 ]; then
        expected[last_sh_command]="$block_text"
      fi
      previous_block=$fence
      fence=""
    fi
    continue
  fi
  case "$fence" in
    sh)
      if [[ "$line" == '$ '* ]]; then
        commands+=("${line#'$ '}")
        last_sh_command=$((${#commands[@]} - 1))
        block_command=$last_sh_command
      elif [ "$block_command" -ge 0 ] && [[ ! "$line" =~ ^[[:space:]]*(#|$) ]]; then
        printed[block_command]+="$line"$'\n'
      fi
      ;;
    plain) block_text+="$line"$'\n' ;;
  esac
done <"$readme"
[ ${#commands[@]} -gt 0 ] || fail "no \`\$ \` commands found in README.md"

# --- the environment the examples run in --------------------------------------------------------
# (What the examples change — PATH, TMPDIR, these — is put back before `swift test`.)
saved_environment=$(export -p)
unset REGISTER_DATA_DIR XDG_RUNTIME_DIR
export REGISTER_SOCKET="$sock" REGISTERD_FIXED_TIME=2026-11-22T14:03:05.000-05:00 TMPDIR="$work"

# --- run them ----------------------------------------------------------------------------------
# True when the command changes the shell it runs in, so must run in this one.
changes_shell() {
  [[ "$1" =~ ^(export|cd|alias)[[:space:]] ]] || [[ "$1" =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] \
    || [[ "$1" =~ \&[[:space:]]*(#.*)?$ && ! "$1" =~ \&\&[[:space:]]*(#.*)?$ ]]
}

# `alias NAME=VALUE` as a function NAME, exported.
define_alias() {
  local definition=${1#alias } name value
  name=${definition%%=*}
  eval "value=${definition#*=}"
  eval "$name() { $value \"\$@\"; }"
  export -f "${name?}"
}

failures=0
ran=0
skipped=0
default_socket='/tmp/registerd-$(id -u).sock'
for index in "${!commands[@]}"; do
  command=${commands[index]}
  label=$(printf '%03d' "$index")
  out="$work/$label.out"
  err="$work/$label.err"
  if [[ "$command" =~ \#\ needs\ ([A-Za-z0-9_.+-]+) ]] && ! command -v "${BASH_REMATCH[1]}" >/dev/null; then
    if [ "$strict" -eq 1 ]; then
      echo "FAIL  \$ $command   (${BASH_REMATCH[1]} is not installed, and --strict runs every example)"
      failures=$((failures + 1))
    else
      echo "skip  \$ $command   (${BASH_REMATCH[1]} is not installed)"
      skipped=$((skipped + 1))
    fi
    continue
  fi
  run=${command//"$default_socket"/"$sock"}
  ran=$((ran + 1))
  problem=""
  details=""
  if [[ "$command" == *"until Ctrl-C"* ]]; then
    # Whoever started this script (a CI runner, a test harness, a job started with `&`) may
    # have left SIGINT ignored, and an ignored signal stays ignored across exec: a terminal's
    # ^C would find it at its default, so it is put back (`env --default-signal`, coreutils
    # 8.31 and later). Should the command outlive SIGINT all the same, it is killed 5 s later
    # (exit 137, reported below) rather than hanging the check.
    default_int=()
    env --default-signal=INT true 2>/dev/null && default_int=(env --default-signal=INT)
    "${default_int[@]}" timeout -k 5 -s INT 3 bash -c "set -o pipefail; $run" >"$out" 2>"$err"
    code=$?
    if [ "$code" -ne 124 ]; then
      problem="exited $code before Ctrl-C"
    elif [ ! -s "$out" ]; then
      problem="printed nothing in 3 seconds"
    fi
  elif changes_shell "$command"; then
    if [[ "$command" == alias\ * ]]; then
      define_alias "${command%%#*}" >"$out" 2>"$err"
    else
      eval "$run" >"$out" 2>"$err" </dev/null
    fi
    code=$?
    if [ "$code" -eq 0 ] && [[ "$command" =~ ^registerd[[:space:]].*\& ]]; then
      daemon_pid=$!
      for _ in $(seq 100); do
        "$bin/register-cli" hello >/dev/null 2>&1 && break
        kill -0 "$daemon_pid" 2>/dev/null || break
        sleep 0.1
      done
      "$bin/register-cli" hello >/dev/null 2>&1 || problem="registerd did not start"
    fi
    [ "$code" -eq 0 ] || problem="exit $code"
  else
    (set -eo pipefail; eval "$run") >"$out" 2>"$err" </dev/null
    code=$?
    if [[ "$command" == *"# refused:"* ]]; then
      [ "$code" -eq 1 ] || problem="exit $code, but the README says it is refused (exit 1)"
    elif [ "$code" -ne 0 ]; then
      problem="exit $code"
    fi
  fi
  if [ -z "$problem" ] && [ -n "${expected[index]+set}" ]; then
    want=${expected[index]%$'\n'}
    if [[ "$(cat "$out")" != *"$want"* ]]; then
      problem="its output is not what the README shows (< README, > printed)"
      details=$(diff <(printf '%s\n' "$want") "$out")
    fi
  fi
  if [ -z "$problem" ] && [ -n "${printed[index]+set}" ]; then
    while IFS= read -r want; do
      # The line as a glob: its own glob characters literal, `...` and `…` any text.
      pattern=$(printf '%s' "$want" | sed -e 's/[][\\*?]/\\&/g' -e 's/\.\.\./*/g' -e 's/…/*/g')
      found=0
      while IFS= read -r got; do
        # shellcheck disable=SC2053 # the right-hand side is a pattern on purpose
        if [[ "$got" == $pattern ]]; then
          found=1
          break
        fi
      done <"$out"
      if [ "$found" -eq 0 ]; then
        problem="it does not print the line the README shows: $want"
        break
      fi
    done <<<"${printed[index]%$'\n'}"
  fi
  if [ -n "$problem" ]; then
    failures=$((failures + 1))
    echo "FAIL  \$ $command   ($problem)"
    [ -z "$details" ] || printf '%s\n' "$details" | sed 's/^/      /'
    sed 's/^/      stderr: /' "$err" | head -20
  else
    echo "ok    \$ $command"
  fi
done
scratch=$PWD
cd "$repo" || exit 1
unset REGISTER_SOCKET REGISTERD_FIXED_TIME TMPDIR
eval "$saved_environment"

if [ -z "$daemon_pid" ]; then
  failures=$((failures + 1))
  echo "FAIL  no example started registerd in the background (\`registerd … &\`)"
elif ! kill -0 "$daemon_pid" 2>/dev/null; then
  failures=$((failures + 1))
  echo "FAIL  registerd is no longer running; its log ($scratch/registerd.log):"
  sed 's/^/      /' "$scratch/registerd.log"
fi
finish
daemon_pid=

if [ "$(checkout_status)" != "$status_before" ]; then
  failures=$((failures + 1))
  echo "FAIL  the examples changed the checkout (an example wrote into it, not its scratch directory):"
  diff <(printf '%s\n' "$status_before") <(checkout_status) | sed -n 's/^> /      /p'
fi

echo "== $ran commands run, $skipped skipped, $failures failed"
if [ "$failures" -gt 0 ]; then
  echo "readme-check: outputs and registerd's log are in $work" >&2
  exit 1
fi
if [ "$keep" -eq 1 ]; then echo "scratch directory: $work"; else rm -rf "$work"; fi

if [ "$run_tests" -eq 1 ]; then
  echo "== swift test"
  swift test || fail "swift test failed after the README's examples"
fi
echo "readme-check: README.md's examples all ran as shown"
