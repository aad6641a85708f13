#!/usr/bin/env bash
# tpu target benchmark: builds vx_bench_tpu, which compiles examples/stream.vx
# and examples/gemm.vx for the tpu target (async and --sync-baseline), runs
# them in vxsim on three DMA latencies and prints, per program and machine,
# async / max(DMA, compute) and baseline / (DMA + compute).
#   bench/tpu.sh [--set KEY=VALUE]...   (other machine parameters, as vxsim)
#   env: BUILD_DIR (build)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DPython3_EXECUTABLE=/usr/bin/python3
fi
ninja -C "$BUILD_DIR" -j2 vx_bench_tpu
"$BUILD_DIR/bench/vx_bench_tpu" "$PWD" "$@"
