#!/usr/bin/env bash
# The cpu target's transcendental loops (include/vx/vmath.h, docs/compute.md)
# against libm, element by element, on 16384 f32: built as `vxc build`
# builds generated code by default (portable: the AVX2 clone is chosen at
# run time) and with -march=native. Ratios from one run of each binary.
#   bench/vmath.sh
set -euo pipefail
cd "$(dirname "$0")/.."
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
FLAGS="-O3 -std=c++17 -ffp-contract=off -fno-math-errno -fno-trapping-math -I include"
# shellcheck disable=SC2086
g++ $FLAGS bench/vmath.cpp -o "$TMP/portable"
# shellcheck disable=SC2086
g++ $FLAGS -march=native bench/vmath.cpp -o "$TMP/native"
echo "portable (vxc build's default):"
"$TMP/portable"
echo "-march=native (vxc run, --target-cpu=native):"
"$TMP/native"
