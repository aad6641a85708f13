# `vxc test-ui` fails on missing, extra and different diagnostics, and
# --bless writes the golden output.
. "$(dirname "$0")/lib.bash" "$@"
mkdir "$TMP/ui"
printf 'fn f() {\n  let = 3; //~ ERROR E0001\n}\n' > "$TMP/ui/good.vx"
expect_status 1 "$VXC" test-ui "$TMP/ui"
contains "$OUT" "no good.stderr but the output is not empty"
expect_status 0 "$VXC" test-ui --bless "$TMP/ui"
[ -f "$TMP/ui/good.stderr" ] || fail "--bless wrote no .stderr"
expect_status 0 "$VXC" test-ui "$TMP/ui"
contains "$OUT" "1 passed, 0 failed"
# A different golden output fails.
sed -i 's/expected a pattern/expected something/' "$TMP/ui/good.stderr"
expect_status 1 "$VXC" test-ui "$TMP/ui"
contains "$OUT" "output differs"
"$VXC" test-ui --bless "$TMP/ui" >/dev/null
# A missing diagnostic fails.
printf 'fn f() {\n  let x = 3; //~ ERROR E0001\n}\n' > "$TMP/ui/missing.vx"
expect_status 1 "$VXC" test-ui "$TMP/ui"
contains "$OUT" "missing diagnostic error E0001 on line 2"
rm "$TMP/ui/missing.vx"
# An extra diagnostic fails.
printf 'fn f() {\n  let = 3;\n}\n' > "$TMP/ui/extra.vx"
"$VXC" test-ui --bless "$TMP/ui" >/dev/null
expect_status 1 "$VXC" test-ui "$TMP/ui"
contains "$OUT" "unexpected diagnostic error E0001 on line 2"
rm "$TMP/ui/extra.vx" "$TMP/ui/extra.stderr"
# A header that cannot mean anything fails the test, never does nothing.
for header in "target: nope" "target:" "solver-rlimit: lots"; do
  printf '//@ %s\nfn f() {}\n' "$header" > "$TMP/ui/header.vx"
  expect_status 1 "$VXC" test-ui "$TMP/ui/header.vx"
  contains "$OUT" "line 1: \`//@ ${header%%:*}:\` takes"
done
printf '//@ target: tpu\n//@ target: cpu\nfn f() {}\n' > "$TMP/ui/header.vx"
expect_status 1 "$VXC" test-ui "$TMP/ui/header.vx"
contains "$OUT" "line 2: a second \`//@ target:\` header"
echo ok
