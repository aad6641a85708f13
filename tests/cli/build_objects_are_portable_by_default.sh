# `vxc build` compiles for the compiler's portable baseline (no -march);
# `--target-cpu=NAME` passes -march=NAME; `vxc run` builds for this machine.
# The C++ compiler is a wrapper that records its arguments.
. "$(dirname "$0")/lib.bash" "$@"
cat >"$TMP/cxx" <<SH
#!/bin/sh
echo "\$@" >>"$TMP/args"
exec g++ "\$@"
SH
chmod +x "$TMP/cxx"
export CXX=$TMP/cxx VXC_NO_CACHE=1
unset VXC_CXXFLAGS
SRC=$ROOT/examples/stream_out.vx
expect_status 0 "$VXC" build "$SRC" -o "$TMP/p.o"
grep -q -- '-march' "$TMP/args" && fail "a default build passes -march: $(cat "$TMP/args")"
: >"$TMP/args"
expect_status 0 "$VXC" build --target-cpu=x86-64-v2 "$SRC" -o "$TMP/v2.o"
grep -q -- '-march=x86-64-v2' "$TMP/args" || fail "--target-cpu=x86-64-v2 is not -march=x86-64-v2: $(cat "$TMP/args")"
: >"$TMP/args"
expect_status 0 "$VXC" build --emit=lib --target-cpu=native "$SRC" -o "$TMP/libn.so"
grep -q -- '-march=native' "$TMP/args" || fail "--target-cpu=native: $(cat "$TMP/args")"
: >"$TMP/args"
expect_status 0 "$VXC" run "$SRC" --arg tiles=1
grep -q -- '-march=native' "$TMP/args" || fail "vxc run does not build for this machine: $(cat "$TMP/args")"
# Bad names are usage errors.
expect_status 2 "$VXC" build --target-cpu='x; rm' "$SRC" -o "$TMP/x.o"
contains "$ERR" "\`--target-cpu\` takes \`native\` or a CPU name"
expect_status 2 "$VXC" build --target-cpu=no-such-cpu "$SRC" -o "$TMP/x.o"
contains "$ERR" "\`--target-cpu=no-such-cpu\`: the C++ compiler does not know this CPU"
expect_status 2 "$VXC" build --target tpu --target-cpu=native "$SRC"
contains "$ERR" "\`--target-cpu\` is for \`--target cpu\`"
echo ok
