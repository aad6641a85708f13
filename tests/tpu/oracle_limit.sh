#!/usr/bin/env bash
# vx-oracle (bench/soundness/Oracle.cpp) on accepted kernels: one whose
# every run ends at vxsim's instruction limit, or traps, is "unjudged", not
# "ok"; one that ends is judged "ok"; a file with tiles taller than 16 rows
# gets the default extents scaled, so that its grids run instances.
#   oracle_limit.sh VX_ORACLE REPO
set -u
ORACLE=$1 REPO=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
FILE=$REPO/tests/tpu/oracle/a_loop_that_never_ends_is_unjudged.vx
out=$("$ORACLE" "$FILE") || fail "vx-oracle exited $?"
grep -q '"fn":"never_ends","kind":"accepted".*"result":"unjudged".*instruction-limit' <<<"$out" ||
  fail "the kernel that never ends was not unjudged: $out"
grep -q '"fn":"ends","kind":"accepted".*"result":"ok"' <<<"$out" || fail "the kernel that ends was not judged ok: $out"
grep -q '"fn":"always_divides_by_zero","kind":"accepted".*"result":"unjudged".*trap' <<<"$out" ||
  fail "the kernel that traps in every run was not unjudged: $out"
# Tiles of 128 rows: the default extents are scaled so that the grid runs
# instances (which never end here); the unscaled ones run none.
TALL=$REPO/tests/tpu/oracle/tall_tiles_get_extents_that_run_their_grids.vx
out=$("$ORACLE" "$TALL") || fail "vx-oracle exited $?"
grep -q '"fn":"instances_that_never_end","kind":"accepted".*"result":"unjudged"' <<<"$out" ||
  fail "the 128-row grid ran no instance with the default extents: $out"
out=$("$ORACLE" "$TALL" --extents 64,40,48,24) || fail "vx-oracle exited $?"
grep -q '"fn":"instances_that_never_end","kind":"accepted".*"result":"ok"' <<<"$out" ||
  fail "with 64 rows, the 128-row grid should run no instance: $out"
echo "ok: a kernel that never ends is unjudged, one that ends is judged; tall tiles get extents that run their grids"
