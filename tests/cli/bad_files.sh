# A missing file or a directory: exit 2 with one line, no crash dump.
. "$(dirname "$0")/lib.bash" "$@"
expect_status 2 "$VXC" check "$TMP/missing.vx"
[ "$(printf '%s\n' "$ERR" | wc -l)" = 1 ] || fail "more than one line: $ERR"
contains "$ERR" "cannot read"
expect_status 2 "$VXC" check "$TMP"
contains "$ERR" "is a directory"
[ "$(printf '%s\n' "$ERR" | wc -l)" = 1 ] || fail "more than one line: $ERR"
: > "$TMP/empty.vx"
expect_status 0 "$VXC" check "$TMP/empty.vx"
echo ok
