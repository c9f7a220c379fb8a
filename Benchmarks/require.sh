# Sourced by the benchmark scripts: `require COMMAND PACKAGE` installs the Debian package that
# provides COMMAND with apt-get when COMMAND is missing (as root, or through sudo).
require() {
  command -v "$1" >/dev/null && return
  echo "$1 is missing; installing $2 with apt-get" >&2
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update >/dev/null
  $sudo apt-get install -y "$2" >/dev/null
}
