#!/usr/bin/env bash
# The checker's E6010 against vxsim: every grid whose instances the checker
# says may write the same element (or read one another writes), built with
# the verdict overridden (the soundness oracle), faults with a race between
# two instances in vxsim; the grids it accepts run clean.
#   grid_races.sh VX_ORACLE REPO
set -u
ORACLE=$1 REPO=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
FILE=$REPO/tests/ui/check/grid/overlapping_instances_race.vx
out=$("$ORACLE" "$FILE") || fail "vx-oracle exited $?"
rejected=0
while IFS= read -r line; do
  case "$line" in
    *'"coverage"'*) continue ;;
    *'"kind":"rejected"'*)
      rejected=$((rejected + 1))
      case "$line" in
        *'"result":"confirmed"'*'fault:write-during-dma'* | *'"result":"confirmed"'*'fault:read-during-dma-write'*) ;;
        *) fail "an E6010 grid did not race in vxsim: $line" ;;
      esac ;;
    *'"kind":"accepted"'*) case "$line" in *'"result":"ok"'*) ;; *) fail "an accepted grid did not run clean: $line" ;; esac ;;
    *) fail "unexpected: $line" ;;
  esac
done <<<"$out"
[ "$rejected" -ge 6 ] || fail "expected the 6 E6010 grids of $FILE, saw $rejected"
echo "ok: $rejected grids with overlapping instances race in vxsim"
