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
# A binary file: one error saying it is not source, not one per byte.
head -c 3072 "$VXC" > "$TMP/binary.vx"
expect_status 1 "$VXC" check "$TMP/binary.vx"
contains "$ERR" "error[E0002]: this does not look like Vx source: it contains NUL bytes"
[ "$(printf '%s\n' "$ERR" | grep -c '^error')" = 2 ] || fail "more than one error for a binary file: $ERR"
# Control characters without a NUL byte: the same, counted.
head -c 3072 /dev/urandom | tr -d '\000' > "$TMP/noise.vx"
expect_status 1 "$VXC" check "$TMP/noise.vx"
contains "$ERR" "does not look like Vx source"
[ "$(printf '%s\n' "$ERR" | grep -c '^error')" = 2 ] || fail "more than one error for binary noise: $ERR"
# Source with a stray control character is still checked as source.
printf 'fn f() {\n  \001\n}\n' > "$TMP/one_bad_char.vx"
expect_status 1 "$VXC" check "$TMP/one_bad_char.vx"
contains "$ERR" "unknown character"
# A device that never ends: refused at the size limit, not read forever.
expect_status 2 "$VXC" check /dev/zero
contains "$ERR" "larger than 256 MiB"
[ "$(printf '%s\n' "$ERR" | wc -l)" = 1 ] || fail "more than one line: $ERR"
# A byte-order mark opening the file is whitespace; columns start after it.
printf '\357\273\277fn f() -> u32 { y }\n' > "$TMP/bom.vx"
expect_status 1 "$VXC" check "$TMP/bom.vx"
contains "$ERR" "bom.vx:1:17"
contains "$ERR" "1 | fn f() -> u32 { y }"
printf '\357\273\277fn f() {}\n' > "$TMP/bom_clean.vx"
expect_status 0 "$VXC" check "$TMP/bom_clean.vx"
# An output in a folder that does not exist, or that is a folder: a usage
# error naming why, before any compiler runs (not "the compiler rejected the
# code", vxc's own bug).
for emit in obj lib exe cpp mlir; do
  expect_status 2 "$VXC" build --emit=$emit -o "$TMP/no/such/out" "$ROOT/examples/stream.vx"
  contains "$ERR" "cannot write \`$TMP/no/such/out\`: its folder \`$TMP/no/such\` does not exist"
  case "$ERR" in *"internal compiler error"*) fail "--emit=$emit into a missing folder: $ERR";; esac
done
expect_status 2 "$VXC" build --target b200 --interpret --emit=obj -o "$TMP/no/such/k.o" "$ROOT/examples/stream.vx"
contains "$ERR" "does not exist"
expect_status 2 "$VXC" build --emit=obj -o "$TMP" "$ROOT/examples/stream.vx"
contains "$ERR" "it is a folder"
echo ok
