# `vxc fix` applies the machine-applicable suggestions in place, after which
# the file checks clean; it leaves files with syntax errors and files with
# nothing mechanical to fix as they are; --dry-run changes nothing; the
# human form of a suggestion is a diff.
. "$(dirname "$0")/lib.bash" "$@"
BAD=$ROOT/../shared/examples/bad
[ -d "$BAD" ] || BAD=$ROOT/tests/examples/bad
for f in dropped overwritten stale; do
  cp "$BAD/$f.vx" "$TMP/$f.vx"
  chmod 640 "$TMP/$f.vx"
  expect_status 1 "$VXC" check "$TMP/$f.vx"
  expect_status 0 "$VXC" fix "$TMP/$f.vx"
  contains "$ERR" "fixed \`$TMP/$f.vx\`: 1 fix"
  expect_status 0 "$VXC" check "$TMP/$f.vx"
  [ "$(stat -c %a "$TMP/$f.vx")" = 640 ] || fail "$f: the fixed file lost its permissions"
  ls "$TMP" | grep -q vxfix && fail "$f: a temporary file was left behind"
  # Fixing again changes nothing.
  cp "$TMP/$f.vx" "$TMP/$f.again"
  expect_status 0 "$VXC" fix "$TMP/$f.vx"
  cmp -s "$TMP/$f.vx" "$TMP/$f.again" || fail "$f: a second fix changed the file"
done
# The fixes themselves: a wait before the `}`, before the reassignment, and
# the token's own wait moved up before the read (E6004).
grep -q '^  wait(inflight);$' "$TMP/dropped.vx" || fail "dropped: $(cat "$TMP/dropped.vx")"
grep -q '^    wait(inflight);$' "$TMP/overwritten.vx" || fail "overwritten: $(cat "$TMP/overwritten.vx")"
[ "$(grep -c 'wait(t);' "$TMP/stale.vx")" = 1 ] || fail "stale: the wait was not moved: $(cat "$TMP/stale.vx")"
[ "$(grep -n 'wait(t);' "$TMP/stale.vx" | cut -d: -f1)" -lt "$(grep -n 'mma(' "$TMP/stale.vx" | cut -d: -f1)" ] ||
  fail "stale: the wait is not before the read: $(cat "$TMP/stale.vx")"

# Nothing mechanical: the file stays as it is, and the errors are printed.
for f in double_wait ring_alias memspace output_aliases_input; do
  cp "$BAD/$f.vx" "$TMP/$f.vx"
  expect_status 1 "$VXC" fix "$TMP/$f.vx"
  cmp -s "$BAD/$f.vx" "$TMP/$f.vx" || fail "$f: changed although nothing is mechanical"
  contains "$ERR" "error["
done
# Syntax errors: refused, unchanged.
cp "$BAD/syntax.vx" "$TMP/syntax.vx"
expect_status 1 "$VXC" fix "$TMP/syntax.vx"
contains "$ERR" "has syntax errors; \`vxc fix\` changes only files that parse"
cmp -s "$BAD/syntax.vx" "$TMP/syntax.vx" || fail "a file with syntax errors was changed"

# --dry-run: the diff, no change.
cp "$BAD/dropped.vx" "$TMP/dry.vx"
expect_status 0 "$VXC" fix --dry-run "$TMP/dry.vx"  # the status the fixed file would have
contains "$OUT" "+  wait(inflight);"
contains "$ERR" "would fix"
cmp -s "$BAD/dropped.vx" "$TMP/dry.vx" || fail "--dry-run changed the file"

# Two tokens dropped at one `}`: both waits, in one run.
cat >"$TMP/two.vx" <<'VX'
fn two(tiles: &Vec<Tensor<f32, [128, 128]>>) on Topology::TensorCore {
  let a = transfer_async(tiles[0], Memory::VMEM);
  let b = transfer_async(tiles[1], Memory::VMEM);
}
VX
expect_status 0 "$VXC" fix "$TMP/two.vx"
contains "$ERR" "2 fixes (E6003 x2)"
expect_status 0 "$VXC" check "$TMP/two.vx"

# The human form of a suggestion shows the change as lines of a diff.
expect_status 1 "$VXC" check --color=never "$BAD/stale.vx"
contains "$ERR" "= help: wait first: move \`wait(t);\` up to before the access"
contains "$ERR" "6 +   wait(t);"
contains "$ERR" "7 -   wait(t);"
expect_status 1 "$VXC" check --color=never "$BAD/dropped.vx"
contains "$ERR" "9 +   wait(inflight);"
# JSON: a multipart suggestion has one span per edit.
expect_status 1 "$VXC" check --error-format=json "$BAD/stale.vx"
[ "$(echo "$ERR" | grep -o '"suggestion_applicability":"MachineApplicable"' | wc -l)" = 2 ] ||
  fail "the moved wait is not two machine-applicable spans: $ERR"

# A file whose lines end in CRLF keeps them: the inserted and moved waits
# end in CRLF too, and the moved wait is found on its CRLF line.
for f in stale dropped; do
  sed 's/$/\r/' "$BAD/$f.vx" > "$TMP/${f}_crlf.vx"
  expect_status 0 "$VXC" fix "$TMP/${f}_crlf.vx"
  expect_status 0 "$VXC" check "$TMP/${f}_crlf.vx"
  [ "$(grep -c $'\r$' "$TMP/${f}_crlf.vx")" = "$(wc -l < "$TMP/${f}_crlf.vx")" ] ||
    fail "a line of the fixed $f.vx does not end in CRLF: $(cat -A "$TMP/${f}_crlf.vx")"
done

# A symbolic link stays a link and its target gets the fix; a file with
# another hard link is fixed for both names.
mkdir -p "$TMP/links"
cp "$BAD/dropped.vx" "$TMP/links/real.vx"
ln -s real.vx "$TMP/links/link.vx"
ln "$TMP/links/real.vx" "$TMP/links/hard.vx"
expect_status 0 "$VXC" fix "$TMP/links/link.vx"
[ -L "$TMP/links/link.vx" ] || fail "the symbolic link was replaced by a file"
expect_status 0 "$VXC" check "$TMP/links/real.vx"
expect_status 0 "$VXC" check "$TMP/links/hard.vx"

# Only a regular file is rewritten: a pipe read to its end stays a pipe.
mkfifo "$TMP/pipe.vx"
cat "$BAD/dropped.vx" > "$TMP/pipe.vx" &
expect_status 2 "$VXC" fix "$TMP/pipe.vx"
contains "$ERR" "not a regular file"
wait
[ -p "$TMP/pipe.vx" ] || fail "the pipe was replaced by a regular file"
# A file its user may not write is left alone (as root, every file may be).
if [ "$(id -u)" != 0 ]; then
  cp "$BAD/dropped.vx" "$TMP/readonly.vx"
  chmod 444 "$TMP/readonly.vx"
  expect_status 2 "$VXC" fix "$TMP/readonly.vx"
  cmp -s "$BAD/dropped.vx" "$TMP/readonly.vx" || fail "a read-only file was rewritten"
fi

expect_status 2 "$VXC" fix
expect_status 2 "$VXC" fix "$TMP/missing.vx"

# Where the wait goes when the `}` is not the place: before the block's final
# expression (its value), and before a `let` that shadows the token's name
# (there the name is still the token's). The JSON says MachineApplicable
# only for an edit that leaves a clean file.
cat >"$TMP/tail.vx" <<'VX'
fn f(t: &Tensor<f32, [8, 8]>) -> i32 on Topology::TensorCore {
  let x = transfer_async(t, Memory::VMEM);
  3
}
VX
cat >"$TMP/shadow.vx" <<'VX'
fn f(t: &Tensor<f32, [8, 8]>) on Topology::TensorCore {
  let x = transfer_async(t, Memory::VMEM);
  let x = transfer_async(t, Memory::VMEM);
  matmul_acc(wait(x));
}
VX
for f in tail shadow; do
  expect_status 1 "$VXC" check --error-format=json "$TMP/$f.vx"
  contains "$ERR" '"suggestion_applicability":"MachineApplicable"'
  expect_status 0 "$VXC" fix "$TMP/$f.vx"
  expect_status 0 "$VXC" check "$TMP/$f.vx"
done
[ "$(sed -n 3p "$TMP/tail.vx")" = "  wait(x);" ] || fail "tail: the wait is not before the final expression: $(cat "$TMP/tail.vx")"
[ "$(sed -n 3p "$TMP/shadow.vx")" = "  wait(x);" ] || fail "shadow: the wait is not before the shadowing let: $(cat "$TMP/shadow.vx")"
# A loop's index takes no `mut`: E0205 says how to copy it, with no edit.
cat >"$TMP/loopvar.vx" <<'VX'
fn f(n: usize) -> usize {
  let mut s = 0;
  for i in 0..n { i = i + 1; s = s + i; }
  s
}
VX
expect_status 1 "$VXC" check --error-format=json "$TMP/loopvar.vx"
contains "$ERR" "let mut i = i;"
echo "$ERR" | grep -q '"suggested_replacement":"' && fail "E0205 on a loop index suggests an edit: $ERR"
echo ok
