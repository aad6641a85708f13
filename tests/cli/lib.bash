# Helpers for CLI tests: each test script gets the vxc binary and the source
# root as $1 and $2, and fails on the first broken expectation.
set -u
VXC=$1
ROOT=$2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# expect_status STATUS CMD... : runs CMD, captures stdout/stderr in $OUT/$ERR
expect_status() {
  local want=$1; shift
  "$@" >"$TMP/out" 2>"$TMP/err"
  local got=$?
  OUT=$(cat "$TMP/out"); ERR=$(cat "$TMP/err")
  [ "$got" = "$want" ] || fail "'$*' exited $got, expected $want; stderr: $ERR"
}
contains() { case "$1" in *"$2"*) ;; *) fail "expected to find '$2' in: $1";; esac; }
