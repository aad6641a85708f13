# The interpreter holds a grid's instances to disjoint elements of global
# memory (docs/b200.md "Grids"), the dynamic counterpart of the checker's
# E6010: tests/run/cuda_grid_race.vx is accepted by the checker; its .cu,
# with one constant per grid rewritten so that instances meet (the checker
# never saw that program), is built as the interpreter with a small main
# and run on b200 and h100, under several schedules and CTA counts (1 CTA:
# both instances on one block, one after the other). It must stop with
# status 101, naming both instances, the element of `c` and the line of
# each access; the unmodified .cu must run clean.
#   cuda_grid_race.sh VXC REPO
set -u
VXC=$1 REPO=$2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
CXX=${CXX:-c++}
SRC=$REPO/tests/run/cuda_grid_race.vx
"$VXC" check --target b200 "$SRC" >/dev/null || fail "the checker rejects $SRC"
"$VXC" build "$SRC" --target b200 --emit=cu -o "$TMP/race.cu" || fail "emit race.cu"
cat >"$TMP/main.cpp" <<'EOF'
#include <cstring>
#include <vector>
#include "race.cu"
int main(int argc, char** argv) {
  const uint64_t m = 384;
  std::vector<float> a(m * 64, 1.0f), c(m * 64, 2.0f);
  if (argc > 1 && std::strcmp(argv[1], "neighbour") == 0) vx_neighbour(c.data(), m);
  else vx_spread(a.data(), c.data(), m);
  std::printf("ran\n");
  return 0;
}
EOF
build() {  # SM OUT
  "$CXX" -std=c++17 -O1 -DVX_CUDA_INTERPRET=1 -DVX_CUDA_SM="$1" -I "$REPO/include" -I "$TMP" "$TMP/main.cpp" -o "$2" ||
    fail "building the interpreter (VX_CUDA_SM=$1)"
}
build 100 "$TMP/clean"
for e in spread neighbour; do
  out=$(VX_CTAS=3 "$TMP/clean" "$e" 2>&1) || fail "the checked program $e stops:
$out"
done
echo "ok the checked grids run clean"

# The rewrite: spread's store row 48 i -> 16 i, neighbour's read row 96 i + 40 -> 96 i + 96.
sed -e 's/(uint64_t)(48LL)/(uint64_t)(16LL)/; s/(uint64_t)(40LL)/(uint64_t)(96LL)/' "$TMP/race.cu" >"$TMP/raced.cu"
[ "$(diff "$TMP/race.cu" "$TMP/raced.cu" | grep -c '^>')" = 2 ] || fail "the rewrite did not change exactly two constants"
mv "$TMP/raced.cu" "$TMP/race.cu"
for sm in 100 90; do
  build $sm "$TMP/raced$sm"
  for run in "1 3" "0 1" "7 4" "2 2"; do
    read -r seed ctas <<<"$run"
    for e in spread neighbour; do
      out=$(VX_SCHEDULE_SEED=$seed VX_CTAS=$ctas "$TMP/raced$sm" "$e" 2>&1)
      rc=$?
      [ $rc -eq 101 ] || fail "$e (VX_CUDA_SM=$sm, seed $seed, $ctas CTAs): exit status $rc, not 101:
$out"
      case $e in
        spread) want='instance [0-3] of the grid writes element \[([1-5][0-9]|6[0-3]), [0-9]+\] of `c`, which instance [0-3] writes \(at [^)]*cuda_grid_race\.vx:10:[0-9]+\)' ;;
        neighbour) want='instance [01] of the grid (reads|writes) element \[(9[6-9]|1[01][0-9]|12[0-7]), [0-9]+\] of `c`, which instance [01] (writes|reads) \(at [^)]*cuda_grid_race\.vx:(19|20):[0-9]+\)' ;;
      esac
      grep -qE "^error: runtime trap: $want.*\(E6010\) at [^ ]*cuda_grid_race\.vx:(10|19|20):[0-9]+$" <<<"$out" ||
        fail "$e (VX_CUDA_SM=$sm, seed $seed, $ctas CTAs) printed:
$out"
    done
  done
  echo "ok overlapping instances stop the run (VX_CUDA_SM=$sm): $(head -1 <<<"$out")"
done
echo "all stopped"
