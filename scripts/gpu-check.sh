#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: runs every example on the GPU target
# that matches it (b200 for compute capability 10.x, h100 for 9.x) and
# compares its checksums with the cpu target's, as tests/run/cuda_interpret.sh
# does for the interpreter (each run first passes the tensor cores'
# self-test, include/vx/cuda/launch.h); checks tf32 products against cpu
# within K * 2^-11; then times the GEMM example against cuBLAS TF32 and a
# stream example against the device's copy bandwidth (scripts/gpu/
# baselines.cu). The grid examples (examples/gemm_rowmajor.vx, rows.vx:
# tensor-map copies, one block per SM) are checked against cpu within the
# tf32 tolerance, and gemm_rowmajor is timed at 4096^3 against cuBLAS TF32
# at 4096^3. Needs nvcc and a built vxc (scripts/build.sh). Fits in 5
# minutes.
#   scripts/gpu-check.sh [VXC]
set -u
cd "$(dirname "$0")/.."
VXC=${1:-build/src/driver/vxc}
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v nvidia-smi >/dev/null || fail "no nvidia-smi: this machine has no NVIDIA GPU driver"
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1)
case $cc in
  10.*) target=b200 ;;
  9.*) target=h100 ;;
  *) fail "compute capability $cc: neither sm_100 (b200) nor sm_90 (h100)" ;;
esac
echo "== GPU: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1) (sm_$cc) -> --target $target"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
run() {  # FILE ENTRY ARGS...
  local f=$1 entry=$2 src
  shift 2
  src=$f  # the checked-in tile sizes fit every target (per-target consts)
  # The cpu reference computes with the GPU's tile sizes (the consts the file
  # sets for b200/h100 only), so both compute the same thing.
  gpu=$(awk '/^#\[cfg\(/ { gpu = ($0 ~ /b200/ && $0 !~ /not\(/); next }
       gpu && /^const [A-Za-z_0-9]+: [a-z0-9]+ = [^;]+;/ {
         n = $0; sub(/^const /, "", n); v = n; sub(/:.*/, "", n); sub(/^[^=]*= */, "", v); sub(/;.*/, "", v)
         printf "--const %s=%s ", n, v
       }
       { gpu = 0 }' "$src")
  # shellcheck disable=SC2086
  want=$("$VXC" run "$src" --entry "$entry" $gpu "$@" | grep -E '^(checksum|result) ') || fail "$src: cpu run"
  got=$("$VXC" run "$src" --entry "$entry" --target "$target" "$@" 2>&1) || fail "$src --target $target: $got"
  got=$(grep -E '^(checksum|result) ' <<<"$got")
  [ "$got" = "$want" ] || fail "$src $entry $*: $target printed
$got
cpu printed
$want"
  echo "ok $(basename "$src") $entry $*: $got"
}
E=examples
run $E/stream.vx stream --seed 0 --arg tiles=8
run $E/stream_out.vx stream_out --seed 1 --arg tiles=5
run $E/ring2.vx ring2 --seed 2 --arg tiles=5
run $E/ring3.vx ring3 --seed 4 --arg tiles=6
run $E/gemm.vx gemm --seed 6 --arg a=6 --arg b=6 --arg c=4 --arg kt=3
run $E/project.vx project --seed 12 --arg tiles=7
run $E/epilogue.vx epilogue --seed 9 --arg x=3
run $E/early_exit.vx early_exit --seed 14 --arg tiles=8 --arg limit=6
echo "== all examples agree with cpu on $target"

out=$("$VXC" run tests/run/tf32_operands.vx --target "$target" --compare=cpu --tolerance 0.03125 2>&1) ||
  fail "tf32 products: $out"
echo "ok tf32 products within 64 * 2^-11 of cpu: $(grep '^compare' <<<"$out")"

# The grid examples on every SM against cpu (the cpu's BK is 128, the GPU's
# 32: k a multiple of 128, or both at BK = 32), within K * 2^-11.
grid() {  # FILE TOLERANCE ARGS...
  local f=$1 tol=$2
  shift 2
  out=$("$VXC" run "$f" --target "$target" --compare=cpu --tolerance "$tol" "$@" 2>&1) || fail "$f $*: $out"
  echo "ok $(basename "$f") $*: $(grep '^compare' <<<"$out")"
}
grid examples/gemm_rowmajor.vx 0.5 --arg m=1024 --arg n=768 --arg k=1024
grid examples/gemm_rowmajor.vx 0.015625 --const BK=32 --arg m=512 --arg n=256 --arg k=32
grid examples/rows.vx 1e-5 --arg m=4096

# ---- timing against the whole GPU (docs/b200.md "Performance"): gemm.vx and
# stream.vx on one block, gemm_rowmajor.vx on one block per SM ----
NVCC=${VXC_NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
"$NVCC" -O3 -o "$TMP/baselines" scripts/gpu/baselines.cu -lcublas || fail "building scripts/gpu/baselines.cu"
base=$("$TMP/baselines" 4096) || fail "baselines: $base"
echo "$base"
tflops=$(awk '/cublas_tf32_tflops/ {print $2}' <<<"$base")
gbps=$(awk '/copy_gbps/ {print $2}' <<<"$base")
# The GEMM example at 1024^3 in its b200/h100 tiles (T = 64): 16 x 16 x 16 tiles.
t=$("$VXC" run examples/gemm.vx --target "$target" --arg a=256 --arg b=256 --arg c=256 --arg kt=16 --repeat 3 | awk '/^time_us/ {print $3}')
awk -v t="$t" -v ref="$tflops" 'BEGIN { f = 2 * 1024^3 / (t * 1e-6) / 1e12;
  printf "gemm 1024^3: %.1f us, %.3f TFLOP/s, %.4fx cuBLAS TF32 at 4096^3 (%.1f TFLOP/s)\n", t, f, f / ref, ref }'
# The grid GEMM over row-major matrices at 4096^3, one block per SM: the
# kernel's own time (VX_KERNEL_TIME, the best of 3), as cuBLAS's is, and the
# entry's (with the launcher's copies of 192 MiB in and 64 MiB out).
out=$(VX_KERNEL_TIME=1 "$VXC" run examples/gemm_rowmajor.vx --target "$target" --arg m=4096 --arg n=4096 --arg k=4096 \
  --repeat 3) || fail "gemm_rowmajor 4096^3: $out"
k=$(awk '/^kernel_us/ {print $3}' <<<"$out" | sort -g | head -1)
t=$(awk '/^time_us/ {print $3}' <<<"$out")
awk -v k="$k" -v t="$t" -v ref="$tflops" 'BEGIN { f = 2 * 4096^3 / (k * 1e-6) / 1e12;
  printf "gemm_rowmajor 4096^3: kernel %.1f us, %.2f TFLOP/s, %.4fx cuBLAS TF32 at 4096^3 (%.1f TFLOP/s); %.1f us with copies\n", k, f, f / ref, ref, t }'
# The stream example: 256 tiles of 128x128 f32 in, one out.
t=$("$VXC" run examples/stream.vx --target "$target" --arg tiles=256 --repeat 3 | awk '/^time_us/ {print $3}')
awk -v t="$t" -v ref="$gbps" 'BEGIN { b = 256 * 128 * 128 * 4 / (t * 1e-6) / 1e9;
  printf "stream 256 tiles: %.1f us, %.1f GB/s read, %.4fx the copy bandwidth (%.1f GB/s)\n", t, b, b / ref, ref }'
echo "== done"
