#!/usr/bin/env bash
# Installs registerd into a temporary DESTDIR (as a packager would) and checks the tree:
# every file is where the README says; the installed binaries need no Swift toolchain (no Swift
# library among what they link, no run path into the toolchain) and run with the toolchain's
# libraries hidden (a private mount namespace with an empty file system over them), where the
# installed registerd serves a sale to the installed register-cli from systemd's directories;
# the man pages render with no warning, the completions load in bash and zsh (and bash
# completes a command), the units pass `systemd-analyze verify` (alone and with each printer
# drop-in), and `make uninstall` takes everything away again.
# Needs binutils (readelf), util-linux (unshare; run as root, or where user namespaces are
# allowed), groff, man-db, zsh and systemd (.ci/run installs them). Exits non-zero on any
# failure.
#
# Usage: Scripts/check-install.sh [PREFIX]      (default PREFIX: /usr)
set -euo pipefail
cd "$(dirname "$0")/.."

prefix=${1:-/usr}
dest=$(mktemp -d /tmp/registerd-install.XXXXXX)
run=$(mktemp -d /tmp/registerd-run.XXXXXX)
cleanup() { rm -rf "$dest" "$run"; }
trap cleanup EXIT

failures=0
fail() {
  echo "check-install: FAIL: $*" >&2
  failures=$((failures + 1))
}
ok() { echo "check-install: ok: $*"; }

echo "== make install DESTDIR=$dest PREFIX=$prefix"
make --no-print-directory install DESTDIR="$dest" PREFIX="$prefix" >"$run/install.log" 2>&1 || {
  cat "$run/install.log" >&2
  echo "check-install: make install failed" >&2
  exit 1
}

expected=(
  "$prefix/sbin/registerd"
  "$prefix/bin/register-cli"
  "$prefix/share/man/man8/registerd.8"
  "$prefix/share/man/man1/register-cli.1"
  "$prefix/share/bash-completion/completions/register-cli"
  "$prefix/share/zsh/site-functions/_register-cli"
  "$prefix/lib/systemd/system/registerd.service"
  "$prefix/lib/systemd/system/registerd.socket"
  "$prefix/lib/sysusers.d/registerd.conf"
  "$prefix/share/registerd/products.json"
  "$prefix/share/registerd/store.json"
  "$prefix/share/registerd/registerd-network-printer.conf"
  "$prefix/share/registerd/registerd-usb-printer.conf"
)
for file in "${expected[@]}"; do
  if [ -f "$dest$file" ]; then ok "installed $file"; else fail "missing $file"; fi
done
# Nothing else: a stray file in the tree is a packaging bug too.
extra=$(cd "$dest" && find . -type f | sed 's|^\.||' | sort | comm -23 - <(printf '%s\n' "${expected[@]}" | sort))
if [ -n "$extra" ]; then fail "unexpected files installed: $extra"; fi
# The configuration directory is made, empty: the example is not the lane's store.
if [ -d "$dest/etc/registerd" ] && [ -z "$(ls -A "$dest/etc/registerd")" ]; then
  ok "made /etc/registerd, empty"
else
  fail "/etc/registerd is missing or not empty: $(ls -A "$dest/etc/registerd" 2>&1)"
fi

# --- The binaries need no Swift toolchain ------------------------------------------------------
# The toolchain that built them: its run-time libraries (libswiftCore.so, libdispatch.so, …) are
# in lib/swift beside its bin. A binary linked against them would run only where they are.
swift_bin=$(dirname "$(readlink -f "$(command -v "${SWIFT:-swift}")")")
toolchain_libraries=$(cd "$swift_bin/../lib/swift" 2>/dev/null && pwd) || {
  echo "check-install: no lib/swift next to $swift_bin: where is the Swift toolchain?" >&2
  exit 1
}
swift_library='lib(swift[A-Za-z_]*|_?Foundation[A-Za-z_]*|dispatch|BlocksRuntime|icu[a-z0-9_]*|XCTest|Testing)\.so'
for program in "$prefix/sbin/registerd" "$prefix/bin/register-cli"; do
  binary="$dest$program"
  dynamic=$(readelf -d "$binary" 2>&1) || {
    fail "readelf -d $program: $dynamic"
    continue
  }
  needed=$(sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' <<<"$dynamic" | paste -sd ' ')
  if grep -Eq "$swift_library" <<<"$needed"; then
    fail "$program links Swift libraries: $needed"
  else
    ok "$program links only $needed"
  fi
  # A run path may only be the binary's own directory ($ORIGIN), never a directory of the
  # build machine.
  runpaths=$(sed -n 's/.*(R\(UN\)\{0,1\}PATH).*\[\(.*\)\]/\2/p' <<<"$dynamic" | tr ':' '\n')
  foreign=$(grep -v '^\$ORIGIN$' <<<"$runpaths" | grep . || true)
  if [ -n "$foreign" ]; then
    fail "$program has a run path into the build machine: $(tr '\n' ' ' <<<"$foreign")"
  else
    ok "$program has no run path outside itself (${runpaths:-none})"
  fi
  resolved=$(LD_LIBRARY_PATH= ldd "$binary" 2>&1 || true)
  if grep -q 'not found' <<<"$resolved" || grep -qF "$toolchain_libraries" <<<"$resolved" \
    || grep -Eq "$swift_library" <<<"$resolved"; then
    fail "ldd $program: $resolved"
  else
    ok "ldd $program: only system libraries"
  fi
done

# Run in a private mount namespace with an empty, read-only file system over the toolchain's
# libraries, the environment emptied (no LD_LIBRARY_PATH), from a directory outside the
# checkout: as on a lane machine that has no Swift. As root a mount namespace is enough;
# otherwise a user namespace maps this user to root in it.
without_toolchain=(unshare --mount --propagation private)
[ "$(id -u)" -eq 0 ] || without_toolchain=(unshare --user --map-root-user --mount --propagation private)
hide_toolchain='mount -t tmpfs -o ro,size=4k no-swift-here "$0" && cd "$1" && shift && exec env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LD_LIBRARY_PATH= HOME="$PWD" TZ=America/New_York "$@"'
hidden() { "${without_toolchain[@]}" sh -c "$hide_toolchain" "$toolchain_libraries" "$run" "$@"; }
if ! probe=$(hidden sh -c 'ls -A "$1"' sh "$toolchain_libraries" 2>&1) || [ -n "$probe" ]; then
  echo "check-install: cannot hide $toolchain_libraries (${without_toolchain[*]}: $probe);" \
    "run as root, or where user namespaces are allowed" >&2
  exit 1
fi
ok "hid $toolchain_libraries (${without_toolchain[*]})"
# The control: the checkout's debug build, linked against the toolchain, does not start there.
debug_registerd="$("${SWIFT:-swift}" build --show-bin-path 2>/dev/null)/registerd"
if [ -x "$debug_registerd" ]; then
  if hidden "$debug_registerd" --version >/dev/null 2>&1; then
    fail "the debug registerd ran with the toolchain hidden: the hiding does not work"
  else
    ok "control: the debug registerd does not start without the toolchain"
  fi
else
  echo "check-install: note: no debug build at $debug_registerd, so no control run"
fi
for program in "$prefix/sbin/registerd" "$prefix/bin/register-cli"; do
  if version=$(hidden "$dest$program" --version 2>&1); then
    ok "$program --version without the toolchain: $version"
  else
    fail "$program does not run without the toolchain: $version"
  fi
done
# An installed register-cli with no registerd to reach tells how an installed one is started.
status=0
said=$(hidden "$dest$prefix/bin/register-cli" --socket "$run/none.sock" show 2>&1 >/dev/null) \
  || status=$?
if [ "$status" -eq 3 ] && grep -qF 'systemctl start registerd.socket' <<<"$said" \
  && ! grep -qF 'swift run' <<<"$said"; then
  ok "register-cli with no registerd says how to start the installed one"
else
  fail "register-cli with no registerd (exit $status): $said"
fi

for page in "$prefix/share/man/man8/registerd.8" "$prefix/share/man/man1/register-cli.1"; do
  warnings=$(groff -man -ww -z "$dest$page" 2>&1 || true)
  if [ -z "$warnings" ]; then ok "groff -man -ww -z $page"; else fail "$page: $warnings"; fi
  rendered=$(MANWIDTH=80 man -l "$dest$page" 2>"$run/man.err" | wc -l)
  if [ "$rendered" -gt 20 ] && [ ! -s "$run/man.err" ]; then
    ok "man -l $page ($rendered lines)"
  else
    fail "man -l $page: $rendered lines, $(cat "$run/man.err")"
  fi
done

bash_completion="$dest$prefix/share/bash-completion/completions/register-cli"
if bash -n "$bash_completion"; then ok "bash -n completion"; else fail "bash -n completion"; fi
# The completion really completes: "register-cli te<TAB>" offers tender.
offered=$(bash -c '
  source "$1"
  COMP_WORDS=(register-cli te); COMP_CWORD=1; COMP_LINE="register-cli te"; COMP_POINT=${#COMP_LINE}
  spec=$(complete -p register-cli)
  function=$(sed -n "s/.*-F \([^ ]*\).*/\1/p" <<<"$spec")
  "$function" register-cli te register-cli
  printf "%s\n" "${COMPREPLY[@]}"' _ "$bash_completion" 2>&1 || true)
if grep -qx tender <<<"$offered"; then ok "bash completes te -> tender"; else fail "bash completion offered: $offered"; fi
zsh_completion="$dest$prefix/share/zsh/site-functions/_register-cli"
if zsh -n "$zsh_completion"; then ok "zsh -n completion"; else fail "zsh -n completion"; fi
if systemd-sysusers --dry-run "$dest$prefix/lib/sysusers.d/registerd.conf" >/dev/null 2>&1; then
  ok "sysusers.d/registerd.conf"
else
  fail "systemd-sysusers refuses $prefix/lib/sysusers.d/registerd.conf"
fi

# The units as installed, their ExecStart pointed into DESTDIR (the binary is not in $prefix).
units="$run/units"
mkdir -p "$units"
for unit in registerd.service registerd.socket; do
  sed "s|$prefix/sbin/registerd|$dest$prefix/sbin/registerd|g" \
    "$dest$prefix/lib/systemd/system/$unit" >"$units/$unit"
done
if grep -q "^ExecStart=$prefix/sbin/registerd" "$dest$prefix/lib/systemd/system/registerd.service"; then
  ok "registerd.service starts $prefix/sbin/registerd"
else
  fail "registerd.service does not start $prefix/sbin/registerd"
fi
# (--man=no: the Documentation= pages are in DESTDIR, not where man looks; they are checked
# above.)
if verify=$(cd "$units" && systemd-analyze verify --man=no registerd.socket registerd.service 2>&1) \
  && [ -z "$verify" ]; then
  ok "systemd-analyze verify"
else
  fail "systemd-analyze verify: $verify"
fi
# With each installed drop-in in the unit's drop-in directory, as HARDWARE.md says to put it.
for drop_in in registerd-network-printer.conf registerd-usb-printer.conf; do
  rm -rf "$units/registerd.service.d"
  mkdir "$units/registerd.service.d"
  cp "$dest$prefix/share/registerd/$drop_in" "$units/registerd.service.d/"
  if verify=$(cd "$units" && systemd-analyze verify --man=no registerd.socket registerd.service 2>&1) \
    && [ -z "$verify" ]; then
    ok "systemd-analyze verify with $drop_in"
  else
    fail "systemd-analyze verify with $drop_in: $verify"
  fi
done

# The installed daemon, started as systemd would start it (its directories in the environment,
# no flags), with the toolchain hidden: it refuses to serve until set up; the store's catalog
# put in its configuration directory (the installed example here), `register-cli setup` gives
# it its first manager, who signs in; then it serves the installed CLI a sale (the receipt's
# date and time), JSON, a parked order's local time.
mkdir -m 700 "$run/state" "$run/runtime" "$run/etc"
cat >"$run/serve.sh" <<'SERVE'
catalog=$1 registerd=$2 cli=$3
CONFIGURATION_DIRECTORY=$PWD/etc STATE_DIRECTORY=$PWD/state RUNTIME_DIRECTORY=$PWD/runtime \
  REGISTERD_FIXED_TIME=2026-11-22T14:03:05.000-05:00 "$registerd" 2>registerd.log &
daemon=$!
for _ in $(seq 100); do [ -S runtime/registerd.sock ] && break; sleep 0.1; done
export REGISTER_SOCKET=$PWD/runtime/registerd.sock
"$cli" add TEE-WHT-M >refused.txt 2>&1
cp "$catalog" etc/products.json && kill -HUP "$daemon"
for _ in $(seq 50); do "$cli" hello | grep -q "needs a manager;" && break; sleep 0.1; done
"$cli" setup --manager mo --manager-name Mo <<<"4321" >setup.txt 2>&1
"$cli" sign-in mo <<<"4321" >/dev/null \
  && "$cli" add TEE-WHT-M >/dev/null && "$cli" --json show >show.json \
  && "$cli" park --note "fitting room" >/dev/null && "$cli" parked >parked.txt \
  && "$cli" add TEE-WHT-M >/dev/null && "$cli" tender cash 20 >receipt.txt
status=$?
kill -TERM "$daemon"
wait "$daemon"
echo "$status $?" >statuses
SERVE
hidden bash serve.sh "$dest$prefix/share/registerd/products.json" "$dest$prefix/sbin/registerd" \
  "$dest$prefix/bin/register-cli" >"$run/serve.out" 2>&1 || true
read -r cli_status daemon_status <"$run/statuses" 2>/dev/null || true
if grep -qs "not_set_up.*register-cli setup" "$run/refused.txt"; then
  ok "the installed registerd refuses to serve before it is set up"
else
  fail "the installed registerd served before it was set up: $(cat "$run/refused.txt" 2>&1)"
fi
if [ "${cli_status:-}" = 0 ] && grep -qs "Lane & Thread" "$run/receipt.txt" \
  && grep -qs '^Receipt 1  *2026-11-22 14:03:05$' "$run/receipt.txt"; then
  ok "the installed registerd served a sale without the toolchain (receipt dated 2026-11-22 14:03:05)"
else
  fail "the installed registerd did not serve a sale: $(cat "$run/serve.out" "$run/registerd.log" "$run/receipt.txt" 2>&1)"
fi
if grep -qs '"ok":true' "$run/show.json" && grep -qs '"total":"16.11"' "$run/show.json"; then
  ok "register-cli --json show: $(head -c 60 "$run/show.json")…"
else
  fail "register-cli --json show: $(cat "$run/show.json" 2>&1)"
fi
if grep -qs 'fitting room: 1 item, total 16.11, parked Sun 22 Nov 14:03' "$run/parked.txt"; then
  ok "register-cli parked: $(cat "$run/parked.txt")"
else
  fail "register-cli parked: $(cat "$run/parked.txt" 2>&1)"
fi
if [ "${daemon_status:-}" = 0 ]; then ok "registerd stopped with status 0"; else fail "registerd exited ${daemon_status:-?}"; fi
if ls "$run/state/journal/"*.ndjson >/dev/null 2>&1; then
  ok "journal in \$STATE_DIRECTORY"
else
  fail "no journal in $run/state/journal"
fi

echo "== make uninstall"
make --no-print-directory uninstall DESTDIR="$dest" PREFIX="$prefix" >"$run/uninstall.log" 2>&1 \
  || fail "make uninstall: $(cat "$run/uninstall.log")"
left=$(cd "$dest" && find . -type f | sed 's|^\.||')
if [ -z "$left" ]; then
  ok "uninstall left nothing"
else
  fail "after uninstall: $left"
fi

if [ "$failures" -gt 0 ]; then
  echo "check-install: $failures check(s) failed" >&2
  exit 1
fi
echo "check-install: all checks passed"
