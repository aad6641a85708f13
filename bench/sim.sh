#!/usr/bin/env bash
# vxsim benchmark: builds vx_bench_sim and prints simulated instructions and
# cycles per wall second (a ~1M-instruction scalar loop, and 10x that) and
# the pipelining figure (async vs max(copy, compute), blocking vs the sum).
#   bench/sim.sh [ITERATIONS]   (default 100000 loop iterations, ~1M instructions)
#   env: BUILD_DIR (build)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DPython3_EXECUTABLE=/usr/bin/python3
fi
ninja -C "$BUILD_DIR" -j2 vx_bench_sim
"$BUILD_DIR/bench/vx_bench_sim" "${1:-100000}"
