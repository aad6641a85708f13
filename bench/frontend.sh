#!/usr/bin/env bash
# Frontend benchmark: builds vx_bench_frontend, generates 10k/100k/1M-line Vx
# programs (bench/gen_vx.py, fixed seed) and prints one table row per size.
#   bench/frontend.sh [LINES...]
# env: BUILD_DIR (build), SEED (1), RUNS (10 warm runs at most), BUDGET (3 s of
# warm runs per mode), CHECK_BUDGET (60 s: check runs on a prefix beyond that)
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
  out=$("$BENCH" "$f" --runs "${RUNS:-10}" --budget "${BUDGET:-3}" \
    --check-budget "${CHECK_BUDGET:-60}")
  echo "$out" >&2
  RESULTS+=("$(grep '^RESULT ' <<<"$out")")
done

# key=value fields of a RESULT line.
field() { sed -n "s/.* $2=\([^ ]*\).*/\1/p" <<<"$1"; }
echo
echo "vxc frontend benchmark — $(date -u +%Y-%m-%d), $(nproc) cores, $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
printf '%9s %13s %11s %11s %11s %13s %10s %10s %10s %10s %9s\n' lines \
  "parse+AST l/s" "+types l/s" "check l/s" "check on" "ANTLR ref l/s" "B/l p+AST" "B/l types" "B/l check" \
  "B/l ANTLR" "to ANTLR"
for r in "${RESULTS[@]}"; do
  printf '%9s %13s %11s %11s %11s %13s %10s %10s %10s %10s %9s\n' "$(field "$r" lines)" \
    "$(field "$r" parse_lps)" "$(field "$r" types_lps)" "$(field "$r" check_lps)" "$(field "$r" check_lines)" \
    "$(field "$r" antlr_lps)" "$(field "$r" parse_bpl)" "$(field "$r" types_bpl)" "$(field "$r" check_bpl)" \
    "$(field "$r" antlr_bpl)" "$(field "$r" antlr_chunks)"
done
echo "targets: lex+parse (vxc's parser, parse+AST here) >= 200000 lines/s warm, <= 200 bytes per source line;"
echo "         front end through type checking >= 150000 lines/s on 100k lines, <= 1000 bytes per line"
