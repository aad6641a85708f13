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
echo ok
