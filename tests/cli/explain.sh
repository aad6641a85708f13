# `vxc explain` prints the docs/errors page, for any case of the code.
. "$(dirname "$0")/lib.bash" "$@"
expect_status 0 "$VXC" explain E0001
[ "$OUT" = "$(cat "$ROOT/docs/errors/E0001.md")" ] || fail "explain E0001 differs from the page"
expect_status 0 "$VXC" explain e0002
contains "$OUT" "# E0002"
expect_status 2 "$VXC" explain E9999
contains "$ERR" "not a vxc diagnostic code"
echo ok
