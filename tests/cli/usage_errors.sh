# Unknown flags and commands get a helpful message.
. "$(dirname "$0")/lib.bash" "$@"
expect_status 2 "$VXC" check --emitt=ast "$ROOT/examples/stream.vx"
contains "$ERR" "unknown option \`--emitt\`"
contains "$ERR" "did you mean \`--emit\`"
expect_status 2 "$VXC" check --error-format=xml "$ROOT/examples/stream.vx"
contains "$ERR" "expected one of \`human\`, \`json\`, \`sarif\`"
expect_status 2 "$VXC" chek
contains "$ERR" "did you mean \`check\`"
expect_status 2 "$VXC" lsp "$ROOT/examples/stream.vx"
contains "$ERR" "takes no files"
# `vxc help CMD` is CMD's help; `vxc help` the top level.
expect_status 0 "$VXC" help run
contains "$OUT" "Usage: vxc run"
expect_status 0 "$VXC" help build
contains "$OUT" "Usage: vxc build"
expect_status 0 "$VXC" help
contains "$OUT" "Commands:"
expect_status 2 "$VXC" help chek
contains "$ERR" "did you mean \`check\`"
# A misspelt entry, on the cpu and the tpu.
expect_status 2 "$VXC" run "$ROOT/examples/stream.vx" --entry straem
contains "$ERR" "did you mean \`stream\`?"
expect_status 2 "$VXC" run "$ROOT/examples/stream.vx" --target tpu --entry straem
contains "$ERR" "did you mean \`stream\`?"
# `--interpret` builds the GPU targets as host C++: a lib, obj or exe only.
expect_status 2 "$VXC" build --interpret "$ROOT/examples/stream.vx"
contains "$ERR" "\`--interpret\` builds \`--target b200\` or \`--target h100\`"
expect_status 2 "$VXC" build --interpret --target b200 --emit=cu "$ROOT/examples/stream.vx"
# A flag of one value given twice: the last one would silently win.
expect_status 2 "$VXC" build "$ROOT/examples/stream.vx" --target tpu --target cpu
contains "$ERR" "option \`--target\` is given twice (\`tpu\` and \`cpu\`)"
expect_status 2 "$VXC" build "$ROOT/examples/stream.vx" --emit=obj -o a.o -o b.o
contains "$ERR" "is given twice"
# The repeatable ones collect their values.
expect_status 0 "$VXC" check "$ROOT/examples/stream.vx" -A unused_variables -W unproved
TMPLIB=$(mktemp -d)
expect_status 0 "$VXC" build --interpret --target h100 --emit=lib "$ROOT/examples/rows.vx" -o "$TMPLIB/librows.so"
[ -f "$TMPLIB/librows.so" ] && [ -f "$TMPLIB/rows.h" ] || { echo "FAIL: no interpreted library or header" >&2; exit 1; }
rm -rf "$TMPLIB"
echo ok
# `--solver-rlimit` says its range: 0 would be no limit at all in Z3.
for v in 0 1000000000 lots; do
  expect_status 2 "$VXC" check --solver-rlimit=$v "$ROOT/examples/stream.vx"
  contains "$ERR" "takes a whole number from 1 to 999999999"
  expect_status 2 "$VXC" build --solver-rlimit=$v "$ROOT/examples/stream.vx" --emit=mlir -o /dev/null
  contains "$ERR" "takes a whole number from 1 to 999999999"
done
