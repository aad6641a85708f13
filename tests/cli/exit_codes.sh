# Exit status: 0 clean or warnings only, 1 errors, 2 usage or internal error.
. "$(dirname "$0")/lib.bash" "$@"
expect_status 0 "$VXC" check "$ROOT/examples/stream.vx"
[ -z "$ERR" ] || fail "clean check printed: $ERR"
expect_status 1 "$VXC" check "$ROOT/tests/examples/bad/syntax.vx"
contains "$ERR" "error: aborting due to 2 previous errors"
expect_status 0 "$VXC" --version
contains "$OUT" "vxc "
expect_status 0 "$VXC" --help
contains "$OUT" "Usage: vxc"
expect_status 2 "$VXC"
echo ok
