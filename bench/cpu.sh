#!/usr/bin/env bash
# cpu target benchmark (docs/cpu.md): prints
#  1. the speed-up of asynchronous copies over the --sync-baseline build of the
#     same program: the canonical stream (copy-bound: ACC += tile), the same
#     stream written with the pipeline form (examples/stream_pipelined.vx:
#     128 KiB blocks, four in flight), the same
#     stream adding through elementwise code (bench/sum_tiles.vx), the
#     projection through narrow weights (copy and compute about balanced) and
#     the tiled GEMM (compute-bound), on a quiet machine and with every other
#     core busy (a spinning process per core);
#  2. the matrix unit's GFLOP/s (through examples/gemm.vx, and the kernel
#     alone) as a ratio to OpenBLAS sgemm on the same shape, one thread each;
#     the example as `vxc build` builds it by default and with
#     `--target-cpu=native`, and the kernel OpenBLAS ran (and, where it does
#     not recognise an AVX-512 CPU, the AVX-512 kernel forced).
# Ratios come from one invocation of this script: async and sync runs
# alternate, and each figure is the best of ROUNDS x REPEAT runs.
#   bench/cpu.sh
# env: BUILD_DIR (build), GEMM (2048: M = N = K, a multiple of 128),
#      TILES (4096 stream tiles), REPEAT (3), ROUNDS (3), MU_REPS (4 products
#      per run of bench/matrix_unit.vx)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
GEMM=${GEMM:-2048}
TILES=${TILES:-4096}
REPEAT=${REPEAT:-3}
MU_REPS=${MU_REPS:-4}
ROUNDS=${ROUNDS:-3}
(( GEMM % 128 == 0 )) || { echo "GEMM must be a multiple of 128" >&2; exit 2; }

if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPython3_EXECUTABLE=/usr/bin/python3
fi
ninja -C "$BUILD_DIR" -j2 vxc vx_bench_cpu >&2
VXC=$BUILD_DIR/src/driver/vxc
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# OpenBLAS picks its kernel at run time (DYNAMIC_ARCH); the figures compare
# with what it picks on this machine by itself: OPENBLAS_CORETYPE and
# OPENBLAS_L2_SIZE, where the environment sets them, are unset for the
# OpenBLAS command only, and the kernel it ran is printed.
BLAS_ENV=(env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE)

# As a user builds them (`vxc build`, default flags: portable objects), and
# the GEMM also for this machine (`--target-cpu=native`).
for ex in stream stream_pipelined project gemm; do
  "$VXC" build "examples/$ex.vx" --emit=exe -o "$TMP/$ex.async"
  "$VXC" build "examples/$ex.vx" --emit=exe --sync-baseline -o "$TMP/$ex.sync"
done
"$VXC" build bench/sum_tiles.vx --emit=exe -o "$TMP/sum.async"
"$VXC" build bench/sum_tiles.vx --emit=exe --sync-baseline -o "$TMP/sum.sync"
"$VXC" build examples/gemm.vx --emit=exe --target-cpu=native -o "$TMP/gemm.native"
# The matrix unit as a program reaches it: `mma` of two GEMM x GEMM on-chip
# tiles, MU_REPS times (bench/matrix_unit.vx), default and native builds.
"$VXC" build bench/matrix_unit.vx --emit=exe --const "N=$GEMM" -o "$TMP/mu.default"
"$VXC" build bench/matrix_unit.vx --emit=exe --const "N=$GEMM" --target-cpu=native -o "$TMP/mu.native"

# best_us EXE ARGS...: the fastest of REPEAT runs, in microseconds.
best_us() { "$@" --repeat "$REPEAT" | sed -n 's/^time_us = //p'; }
min() { awk -v a="$1" -v b="$2" 'BEGIN { print (b == "" || a < b) ? a : b }'; }

T=$((GEMM / 128))
STREAM_ARGS=(--arg "tiles=$TILES")
PIPE_ARGS=(--arg "m=$((TILES * 128))")  # the same bytes: TILES x 128 rows of 128 floats
GEMM_ARGS=(--arg "a=$((T * T))" --arg "b=$((T * T))" --arg "c=$((T * T))" --arg "kt=$T")
# The checksums of the two builds must agree, or the figures mean nothing.
for ex in stream stream_pipelined sum project gemm; do
  args=("${STREAM_ARGS[@]}")
  [ $ex = gemm ] && args=("${GEMM_ARGS[@]}")
  [ $ex = stream_pipelined ] && args=("${PIPE_ARGS[@]}")
  a=$("$TMP/$ex.async" "${args[@]}" | grep '^checksum')
  s=$("$TMP/$ex.sync" "${args[@]}" | grep '^checksum')
  [ "$a" = "$s" ] || { echo "checksums differ for $ex: $a vs $s" >&2; exit 1; }
done

cores_before=$("$BUILD_DIR/bench/vx_bench_cpu" --parallelism | sed -n 's/^RESULT cores=//p')
# The best async and sync times (us) of stream, sum, project, gemm and the
# pipelined stream, one line.
measure() {
  local sa="" ss="" ea="" es="" pa="" ps="" ga="" gs="" la="" ls=""
  for ((r = 0; r < ROUNDS; ++r)); do
    sa=$(min "$(best_us "$TMP/stream.async" "${STREAM_ARGS[@]}")" "$sa")
    ss=$(min "$(best_us "$TMP/stream.sync" "${STREAM_ARGS[@]}")" "$ss")
    la=$(min "$(best_us "$TMP/stream_pipelined.async" "${PIPE_ARGS[@]}")" "$la")
    ls=$(min "$(best_us "$TMP/stream_pipelined.sync" "${PIPE_ARGS[@]}")" "$ls")
    ea=$(min "$(best_us "$TMP/sum.async" "${STREAM_ARGS[@]}")" "$ea")
    es=$(min "$(best_us "$TMP/sum.sync" "${STREAM_ARGS[@]}")" "$es")
    pa=$(min "$(best_us "$TMP/project.async" "${STREAM_ARGS[@]}")" "$pa")
    ps=$(min "$(best_us "$TMP/project.sync" "${STREAM_ARGS[@]}")" "$ps")
    ga=$(min "$(best_us "$TMP/gemm.async" "${GEMM_ARGS[@]}")" "$ga")
    gs=$(min "$(best_us "$TMP/gemm.sync" "${GEMM_ARGS[@]}")" "$gs")
  done
  echo "$sa $ss $ea $es $pa $ps $ga $gs $la $ls"
}
read -r sa ss ea es pa ps ga gs la ls <<<"$(measure)"
gn="" md="" mn=""
for ((r = 0; r < ROUNDS; ++r)); do
  gn=$(min "$(best_us "$TMP/gemm.native" "${GEMM_ARGS[@]}")" "$gn")
  md=$(min "$(best_us "$TMP/mu.default" --arg "reps=$MU_REPS")" "$md")
  mn=$(min "$(best_us "$TMP/mu.native" --arg "reps=$MU_REPS")" "$mn")
done
# The same async/sync pairs with every other core busy: one process per
# other core spinning for the whole measurement (copies must not take the
# core the kernel computes on: docs/cpu.md, the copy engine).
spinners=()
for ((c = 1; c < $(nproc); ++c)); do
  bash -c 'while :; do :; done' &
  spinners+=($!)
done
trap 'kill "${spinners[@]}" 2>/dev/null; rm -rf "$TMP"' EXIT
read -r ba bs bea bes bpa bps bga bgs bla bls <<<"$(measure)"
kill "${spinners[@]}" 2>/dev/null || true
wait 2>/dev/null || true
blas=$("${BLAS_ENV[@]}" "$BUILD_DIR/bench/vx_bench_cpu" "$GEMM" "$GEMM" "$GEMM" --runs "$((REPEAT * ROUNDS))")
core=$(sed -n 's/^RESULT blas_core=//p' <<<"$blas")
config=$(sed -n 's/^RESULT blas_config=//p' <<<"$blas")
echo "$blas" >&2
# On an AVX-512 machine, the AVX2 kernels too: ours forced with VX_CPU_ISA,
# OpenBLAS's with OPENBLAS_CORETYPE=Haswell (what an AVX2-only x86 runs).
g2="" b2=""
if grep -qw avx512f /proc/cpuinfo; then
  for ((r = 0; r < ROUNDS; ++r)); do
    g2=$(min "$(best_us env VX_CPU_ISA=avx2 "$TMP/gemm.async" "${GEMM_ARGS[@]}")" "$g2")
  done
  b2=$(env OPENBLAS_CORETYPE=Haswell "$BUILD_DIR/bench/vx_bench_cpu" "$GEMM" "$GEMM" "$GEMM" --runs "$((REPEAT * ROUNDS))" |
    sed -n 's/^RESULT blas_gflops=\([0-9.]*\).*/\1/p')
fi
# OpenBLAS 0.3.21 does not know every AVX-512 CPU (a Sapphire Rapids is
# `Prescott` to it, an SSE3 kernel): there the figure against its own pick
# says nothing, so the example is also compared with the AVX-512 kernel such
# a CPU runs once recognised (`Cooperlake` where the CPU has AVX512-BF16,
# `SkylakeX` elsewhere), forced with OPENBLAS_CORETYPE.
x512="" b512="" g512=""
if grep -qw avx512f /proc/cpuinfo; then
  case "$core" in
    SkylakeX | Cooperlake | SapphireRapids | Zen4 | Zen5) ;;
    *)
      x512=SkylakeX
      grep -qw avx512_bf16 /proc/cpuinfo && x512=Cooperlake
      b512=$(env OPENBLAS_CORETYPE=$x512 "$BUILD_DIR/bench/vx_bench_cpu" "$GEMM" "$GEMM" "$GEMM" --runs "$((REPEAT * ROUNDS))" |
        sed -n 's/^RESULT blas_gflops=\([0-9.]*\).*/\1/p')
      ;;
  esac
fi
cores_after=$("$BUILD_DIR/bench/vx_bench_cpu" --parallelism | sed -n 's/^RESULT cores=//p')
bg=$(sed -n 's/^RESULT blas_gflops=\([0-9.]*\).*/\1/p' <<<"$blas")
kg=$(sed -n 's/^RESULT .*vx_gflops=\([0-9.]*\).*/\1/p' <<<"$blas")

awk -v sa="$sa" -v ss="$ss" -v ea="$ea" -v es="$es" -v bea="$bea" -v bes="$bes" -v pa="$pa" -v ps="$ps" -v ga="$ga" -v gs="$gs" -v la="$la" -v ls="$ls" -v bla="$bla" -v bls="$bls" -v bg="$bg" -v kg="$kg" -v n="$GEMM" -v tiles="$TILES" \
    -v ba="$ba" -v bs="$bs" -v bpa="$bpa" -v bps="$bps" -v bga="$bga" -v bgs="$bgs" -v g2="$g2" -v b2="$b2" \
    -v gn="$gn" -v md="$md" -v mn="$mn" -v reps="$MU_REPS" -v x512="$x512" -v b512="$b512" -v core="$core" -v config="$config" -v load="$(cut -d' ' -f1 /proc/loadavg)" -v cpus="$(nproc)" \
    -v c0="$cores_before" -v c1="$cores_after" 'BEGIN {
  flops = 2 * n * n * n
  printf "cpu target, %d cores; two busy threads got %s cores before and %s after the runs\n", cpus, c0, c1
  printf "(load average %s at the end: other processes share the machine)\n\n", load
  printf "%-34s %12s %12s %9s\n", "async copies vs --sync-baseline", "async ms", "sync ms", "speed-up"
  printf "%-34s %12.2f %12.2f %8.2fx\n", "stream, " tiles " tiles 128x128 f32", sa / 1000, ss / 1000, ss / sa
  printf "%-34s %12.2f %12.2f %8.2fx\n", "  pipelined (stream_pipelined)", la / 1000, ls / 1000, ls / la
  printf "%-34s %12.2f %12.2f %8.2fx\n", "  adding elementwise (sum_tiles)", ea / 1000, es / 1000, es / ea
  printf "%-34s %12.2f %12.2f %8.2fx\n", "project, " tiles " tiles @ [128,16]", pa / 1000, ps / 1000, ps / pa
  printf "%-34s %12.2f %12.2f %8.2fx\n", "gemm " n "^3 f32 (examples/gemm.vx)", ga / 1000, gs / 1000, gs / ga
  printf "\n%-34s %12s %12s %9s\n", "the same, every other core busy", "async ms", "sync ms", "speed-up"
  printf "%-34s %12.2f %12.2f %8.2fx\n", "stream", ba / 1000, bs / 1000, bs / ba
  printf "%-34s %12.2f %12.2f %8.2fx\n", "  pipelined (stream_pipelined)", bla / 1000, bls / 1000, bls / bla
  printf "%-34s %12.2f %12.2f %8.2fx\n", "  adding elementwise (sum_tiles)", bea / 1000, bes / 1000, bes / bea
  printf "%-34s %12.2f %12.2f %8.2fx\n", "project", bpa / 1000, bps / 1000, bps / bpa
  printf "%-34s %12.2f %12.2f %8.2fx\n", "gemm", bga / 1000, bgs / 1000, bgs / bga
  printf "\n%-34s %12s %9s\n", "matrix unit, " n "^3 f32, 1 thread", "GFLOP/s", "vs BLAS"
  g = ga < gs ? ga : gs  # the faster build: the rate of the matrix unit, end to end
  printf "%-34s %12.1f %8.2fx\n", "examples/gemm.vx (wall time)", flops / g / 1000, flops / g / 1000 / bg
  printf "%-34s %12.1f %8.2fx\n", "  the same, --target-cpu=native", flops / gn / 1000, flops / gn / 1000 / bg
  printf "%-34s %12.1f %8.2fx\n", "mma (bench/matrix_unit.vx)", reps * flops / md / 1000, reps * flops / md / 1000 / bg
  printf "%-34s %12.1f %8.2fx\n", "  the same, --target-cpu=native", reps * flops / mn / 1000, reps * flops / mn / 1000 / bg
  printf "%-34s %12.1f %8.2fx\n", "kernel alone (vx/gemm.h)", kg, kg / bg
  printf "%-34s %12.1f %8.2fx\n", "OpenBLAS sgemm (core " core ")", bg, 1
  if (x512 != "" && b512 != "") {
    printf "%-34s %12.1f %8.2fx\n", "examples/gemm.vx vs the next line", flops / g / 1000, flops / g / 1000 / b512
    printf "%-34s %12.1f %8.2fx\n", "  the same, --target-cpu=native", flops / gn / 1000, flops / gn / 1000 / b512
    printf "%-34s %12.1f %8.2fx\n", "mma (bench/matrix_unit.vx)", reps * flops / md / 1000, reps * flops / md / 1000 / b512
    printf "%-34s %12.1f %8.2fx\n", "kernel alone (vx/gemm.h)", kg, kg / b512
    printf "%-34s %12.1f %8.2fx\n", "OpenBLAS (core " x512 ", forced)", b512, 1
  }
  if (g2 != "" && b2 != "") {
    printf "%-34s %12.1f %8.2fx\n", "examples/gemm.vx, VX_CPU_ISA=avx2", flops / g2 / 1000, flops / g2 / 1000 / b2
    printf "%-34s %12.1f %8.2fx\n", "OpenBLAS sgemm (core Haswell)", b2, 1
  }
}'
