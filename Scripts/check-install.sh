#!/usr/bin/env bash
# Installs registerd into a temporary DESTDIR (as a packager would) and checks the tree:
# every file is where the README says, the installed binaries run, the man pages render with
# no warning, the completions load in bash and zsh (and bash completes a command), the units
# pass `systemd-analyze verify`, the installed registerd serves the installed example from
# systemd's directories, and `make uninstall` takes everything away again.
# Needs groff, man-db, zsh and systemd (.ci/run installs them). Exits non-zero on any failure.
#
# Usage: Scripts/check-install.sh [PREFIX]      (default PREFIX: /usr)
set -euo pipefail
cd "$(dirname "$0")/.."

prefix=${1:-/usr}
dest=$(mktemp -d /tmp/registerd-install.XXXXXX)
run=$(mktemp -d /tmp/registerd-run.XXXXXX)
daemon_pid=
cleanup() {
  if [ -n "$daemon_pid" ]; then kill "$daemon_pid" 2>/dev/null || true; fi
  rm -rf "$dest" "$run"
}
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
  "/etc/registerd/products.json"
)
for file in "${expected[@]}"; do
  if [ -f "$dest$file" ]; then ok "installed $file"; else fail "missing $file"; fi
done
# Nothing else: a stray file in the tree is a packaging bug too.
extra=$(cd "$dest" && find . -type f | sed 's|^\.||' | sort | comm -23 - <(printf '%s\n' "${expected[@]}" | sort))
if [ -n "$extra" ]; then fail "unexpected files installed: $extra"; fi

for program in "$prefix/sbin/registerd" "$prefix/bin/register-cli"; do
  if [ -x "$dest$program" ] && "$dest$program" --version >/dev/null; then
    ok "$program --version"
  else
    fail "$program does not run"
  fi
done

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

# The installed daemon, started as systemd would start it (its directories in the
# environment, no flags), serves the installed example; the installed CLI rings up a sale.
mkdir -m 700 "$run/state" "$run/runtime"
CONFIGURATION_DIRECTORY="$dest/etc/registerd" STATE_DIRECTORY="$run/state" \
  RUNTIME_DIRECTORY="$run/runtime" REGISTER_SOCKET= REGISTER_DATA_DIR= \
  "$dest$prefix/sbin/registerd" 2>"$run/registerd.log" &
daemon_pid=$!
for _ in $(seq 100); do
  [ -S "$run/runtime/registerd.sock" ] && break
  sleep 0.1
done
cli=("$dest$prefix/bin/register-cli" --socket "$run/runtime/registerd.sock")
if "${cli[@]}" add TEE-WHT-M >/dev/null && "${cli[@]}" tender cash 20 | grep -q "Lane & Thread"; then
  ok "the installed registerd serves /etc/registerd/products.json"
else
  fail "the installed registerd did not serve a sale: $(cat "$run/registerd.log")"
fi
kill -TERM "$daemon_pid"
if wait "$daemon_pid"; then ok "registerd stopped with status 0"; else fail "registerd exited $?"; fi
daemon_pid=
if ls "$run/state/journal/"*.ndjson >/dev/null 2>&1; then
  ok "journal in \$STATE_DIRECTORY"
else
  fail "no journal in $run/state/journal"
fi

echo "== make uninstall"
make --no-print-directory uninstall DESTDIR="$dest" PREFIX="$prefix" >"$run/uninstall.log" 2>&1 \
  || fail "make uninstall: $(cat "$run/uninstall.log")"
left=$(cd "$dest" && find . -type f | sed 's|^\.||')
if [ "$left" = "/etc/registerd/products.json" ]; then
  ok "uninstall left only the store's configuration"
else
  fail "after uninstall: $left"
fi

if [ "$failures" -gt 0 ]; then
  echo "check-install: $failures check(s) failed" >&2
  exit 1
fi
echo "check-install: all checks passed"
