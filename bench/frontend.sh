#!/usr/bin/env bash
# Frontend benchmark: builds vx_bench_frontend, generates 10k/100k/1M-line Vx
# programs (bench/gen_vx.py, fixed seed) and prints one table row per size.
#   bench/frontend.sh [LINES...]     env: BUILD_DIR (build), RUNS (auto), SEED (1)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
SIZES=("$@")
[ ${#SIZES[@]} -gt 0 ] || SIZES=(10000 100000 1000000)

if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DPython3_EXECUTABLE=/usr/bin/python3
fi
ninja -C "$BUILD_DIR" -j2 vx_bench_frontend
BENCH=$BUILD_DIR/bench/vx_bench_frontend

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
RESULTS=()
for n in "${SIZES[@]}"; do
  f=$TMP/gen_$n.vx
  /usr/bin/python3 bench/gen_vx.py "$n" --seed "${SEED:-1}" -o "$f"
  echo "== $n lines" >&2
  out=$("$BENCH" "$f" ${RUNS:+--runs "$RUNS"})
  echo "$out" >&2
  RESULTS+=("$(grep '^RESULT ' <<<"$out")")
done

# key=value fields of a RESULT line.
field() { sed -n "s/.* $2=\([^ ]*\).*/\1/p" <<<"$1"; }
echo
echo "vxc frontend benchmark — $(date -u +%Y-%m-%d), $(nproc) cores, $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
printf '%9s %14s %14s %14s %12s %12s %12s %9s\n' lines "lex+parse l/s" "parse+AST l/s" \
  "check l/s" "B/l lex+p" "B/l p+AST" "B/l check" fallbacks
for r in "${RESULTS[@]}"; do
  printf '%9s %14s %14s %14s %12s %12s %12s %9s\n' "$(field "$r" lines)" \
    "$(field "$r" lexparse_lps)" "$(field "$r" parse_lps)" "$(field "$r" check_lps)" \
    "$(field "$r" lexparse_bpl)" "$(field "$r" parse_bpl)" "$(field "$r" check_bpl)" \
    "$(field "$r" fallbacks)"
done
echo "targets: lex+parse >= 200000 lines/s warm; <= 200 bytes per source line"
