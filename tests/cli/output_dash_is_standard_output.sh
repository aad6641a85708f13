# `-o -` writes a text artifact to standard output, never to a file named
# `-`; a binary artifact to standard output is a usage error.
. "$(dirname "$0")/lib.bash" "$@"
cd "$TMP"
expect_status 0 "$VXC" build "$ROOT/examples/stream.vx" --target tpu -o -
contains "$OUT" ".kernel stream"
expect_status 0 "$VXC" build "$ROOT/examples/stream.vx" --emit=mlir -o -
contains "$OUT" "func.func"
expect_status 0 "$VXC" build "$ROOT/examples/stream.vx" --emit=abi -o -
contains "$OUT" '"name"'
# C++ to standard output is one unit: the header in place of its include.
expect_status 0 "$VXC" build "$ROOT/examples/stream.vx" --emit=cpp -o -
printf '%s\n' "$OUT" > unit.cpp
g++ -std=c++17 -fsyntax-only -I "$ROOT/include" unit.cpp || fail "the unit on standard output does not compile"
expect_status 0 "$VXC" build "$ROOT/examples/stream.vx" --emit=mlir=-
contains "$OUT" "func.func"
for kind in obj lib exe; do
  expect_status 2 "$VXC" build "$ROOT/examples/stream.vx" --emit=$kind -o -
  contains "$ERR" "is a binary file"
done
expect_status 2 "$VXC" build "$ROOT/examples/stream.vx" --emit=mlir,cpp -o -
contains "$ERR" "names one artifact"
[ ! -e "$TMP/-" ] || fail "a file named '-' was written"
# Nor is one committed.
[ -z "$(git -C "$ROOT" ls-files -- ':(literal)-' 2>/dev/null)" ] || fail "a file named '-' is committed"
echo ok
