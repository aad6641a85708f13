#!/usr/bin/env bash
# vx-oracle (bench/soundness/Oracle.cpp) on accepted kernels: one whose
# every run ends at vxsim's instruction limit is "limit" (unjudged), not
# "ok"; one that ends is judged "ok".
#   oracle_limit.sh VX_ORACLE REPO
set -u
ORACLE=$1 REPO=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
FILE=$REPO/tests/tpu/oracle/a_loop_that_never_ends_is_unjudged.vx
out=$("$ORACLE" "$FILE") || fail "vx-oracle exited $?"
grep -q '"fn":"never_ends","kind":"accepted".*"result":"limit".*instruction-limit' <<<"$out" ||
  fail "the kernel that never ends was not unjudged: $out"
grep -q '"fn":"ends","kind":"accepted".*"result":"ok"' <<<"$out" || fail "the kernel that ends was not judged ok: $out"
echo "ok: a kernel that never ends is unjudged, one that ends is judged"
