#!/usr/bin/env bash
# The launch grid on several TensorCores: examples/gemm_rowmajor.vx (one grid
# instance per 128 x 128 tile of C) built for the tpu target and simulated in
# vxsim on 1 core and on 2 (`cores`), on the default machine and on one where
# the copies' latency is hidden (compute-bound). Prints both cycle counts
# and their ratio; with --check R, exits 1 when the default machine's ratio
# is below R.
#   bench/tpu_grid.sh [--check R] [M N K]   (default 512 512 512)
#   env: BUILD_DIR (build); VXC and VXSIM: use these binaries, build nothing
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
CHECK=""
if [ "${1:-}" = "--check" ]; then
  CHECK=$2
  shift 2
fi
M=${1:-512} N=${2:-512} K=${3:-512}
if [ -z "${VXC:-}" ] || [ -z "${VXSIM:-}" ]; then
  if [ ! -f "$BUILD_DIR/build.ninja" ]; then
    cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPython3_EXECUTABLE=/usr/bin/python3
  fi
  ninja -C "$BUILD_DIR" -j2 vxc vxsim >/dev/null
  VXC=$BUILD_DIR/src/driver/vxc VXSIM=$BUILD_DIR/src/sim/vxsim
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
"$VXC" build examples/gemm_rowmajor.vx --target tpu -o "$TMP/gemm.vxdma"

# cycles CORES [--set KEY=VALUE]...: one run's cycle count (and its checksum in $TMP/sum.CORES).
cycles() {
  local cores=$1
  shift
  "$VXSIM" "$TMP/gemm.vxdma" --arg m="$M" --arg n="$N" --arg k="$K" --cores "$cores" "$@" >"$TMP/out"
  grep '^checksum' "$TMP/out" >"$TMP/sum.$cores"
  sed -n 's/^cycles = //p' "$TMP/out"
}

echo "gemm_rowmajor m=$M n=$N k=$K (BM = BN = BK = 128: $((M / 128 * (N / 128))) instances)"
status=0
for machine in "default" "dma_latency=50"; do
  set=()
  [ "$machine" = default ] || set=(--set "$machine")
  one=$(cycles 1 "${set[@]}")
  two=$(cycles 2 "${set[@]}")
  cmp -s "$TMP/sum.1" "$TMP/sum.2" || { echo "1 and 2 cores print different checksums" >&2; exit 1; }
  ratio=$(awk -v a="$one" -v b="$two" 'BEGIN { printf "%.3f", a / b }')
  printf '%-16s 1 core: %8d cycles   2 cores: %8d cycles   ratio: %sx\n' "$machine" "$one" "$two" "$ratio"
  if [ -n "$CHECK" ] && [ "$machine" = default ] && awk -v r="$ratio" -v w="$CHECK" 'BEGIN { exit !(r < w) }'; then
    echo "the 2-core speedup $ratio is below $CHECK" >&2
    status=1
  fi
done
exit $status
