#!/usr/bin/env bash
# The grid on the cpu target (docs/grid.md): examples/gemm_rowmajor.vx at
# GEMM^3 f32, built as a user builds it (`vxc build --emit=exe`) with the
# tile sizes `vxc tune` picks on this machine (CONSTS), run on one worker
# pinned to one core (`taskset -c 0`: the worker makes its own copies), on
# one worker with the copy engine free on another core, and on every core,
# and OpenBLAS sgemm on as many threads; best wall time of REPEAT runs each,
# alternating ROUNDS times. Prints the times and the two ratios the grid
# issue asks for (every core vs one core, and vx vs OpenBLAS on the same
# thread count).
#   bench/cpu_grid.sh
# env: BUILD_DIR (build), GEMM (2048), REPEAT (3), ROUNDS (3), WORKERS (nproc),
#      CONSTS ("BM=256 BN=256 BK=64": `vxc tune examples/gemm_rowmajor.vx
#      --const BM=128,256 --const BN=128,256 --const BK=64,128 --arg m=2048
#      --arg n=2048 --arg k=2048` on the 2-core machine of bench/README.md)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
GEMM=${GEMM:-2048}
REPEAT=${REPEAT:-3}
ROUNDS=${ROUNDS:-3}
WORKERS=${WORKERS:-$(nproc)}
CONSTS=${CONSTS:-BM=256 BN=256 BK=64}
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPython3_EXECUTABLE=/usr/bin/python3
fi
ninja -C "$BUILD_DIR" -j2 vxc vx_bench_cpu >&2
VXC=$BUILD_DIR/src/driver/vxc
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
CFLAGS=()
for c in $CONSTS; do CFLAGS+=(--const "$c"); done
"$VXC" build examples/gemm_rowmajor.vx --emit=exe -o "$TMP/gemm" "${CFLAGS[@]}"
ARGS=(--arg "m=$GEMM" --arg "n=$GEMM" --arg "k=$GEMM")
best_us() { "$@" --repeat "$REPEAT" | sed -n 's/^time_us = //p'; }
min() { awk -v a="$1" -v b="$2" 'BEGIN { print (b == "" || a < b) ? a : b }'; }
# The two runs must compute the same thing.
one=$(VX_WORKERS=1 taskset -c 0 "$TMP/gemm" "${ARGS[@]}" | grep '^checksum')
all=$(VX_WORKERS=$WORKERS "$TMP/gemm" "${ARGS[@]}" | grep '^checksum')
[ "$one" = "$all" ] || { echo "checksums differ: $one vs $all" >&2; exit 1; }
t1="" te="" tn="" tb=""
for ((r = 0; r < ROUNDS; ++r)); do
  t1=$(min "$(VX_WORKERS=1 best_us taskset -c 0 "$TMP/gemm" "${ARGS[@]}")" "$t1")
  te=$(min "$(VX_WORKERS=1 best_us "$TMP/gemm" "${ARGS[@]}")" "$te")
  tn=$(min "$(VX_WORKERS=$WORKERS best_us "$TMP/gemm" "${ARGS[@]}")" "$tn")
  b=$(env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "$BUILD_DIR/bench/vx_bench_cpu" --blas-threads "$WORKERS" \
        "$GEMM" "$GEMM" "$GEMM" --runs "$REPEAT")
  tb=$(min "$(sed -n 's/.*blas_us=\([0-9.]*\).*/\1/p' <<<"$b")" "$tb")
  core=$(sed -n 's/.*blas_core=\(.*\)/\1/p' <<<"$b")
done
flops=$(awk -v g="$GEMM" 'BEGIN { print 2 * g * g * g }')
gf() { awk -v f="$flops" -v t="$1" 'BEGIN { printf "%.1f", f / t / 1e3 }'; }
echo "gemm_rowmajor ${GEMM}^3 f32 (--const ${CONSTS// / --const }), best of $((REPEAT * ROUNDS)) runs, wall time"
printf '  vx, 1 worker, 1 core %9.0f us  %7s GFLOP/s\n' "$t1" "$(gf "$t1")"
printf '  vx, 1 worker + engine %8.0f us  %7s GFLOP/s  (copies on another core)\n' "$te" "$(gf "$te")"
printf '  vx, %d workers       %10.0f us  %7s GFLOP/s\n' "$WORKERS" "$tn" "$(gf "$tn")"
printf '  OpenBLAS, %d threads %10.0f us  %7s GFLOP/s  (kernel %s)\n' "$WORKERS" "$tb" "$(gf "$tb")" "$core"
awk -v a="$t1" -v e="$te" -v b="$tn" -v c="$tb" -v w="$WORKERS" \
  'BEGIN { printf "RESULT workers_speedup=%.2f (vs one worker with the engine: %.2f) vs_openblas=%.2f (workers=%d)\n", a / b, e / b, c / b, w }'
