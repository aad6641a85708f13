#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: runs every example on the GPU target
# that matches it (b200 for compute capability 10.x, h100 for 9.x) and
# compares its checksums with the cpu target's, as tests/run/cuda_interpret.sh
# does for the interpreter (each run first passes the tensor cores'
# self-test, include/vx/cuda/launch.h); checks tf32 products against cpu
# within K * 2^-11; then times the GEMM example against cuBLAS TF32 and a
# stream example against the device's copy bandwidth (scripts/gpu/
# baselines.cu). Needs nvcc and a built vxc (scripts/build.sh). Fits in 5
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
  src=$f
  if "$VXC" check --target "$target" "$f" 2>&1 | grep -q E6007; then
    src=$TMP/$(basename "$f")
    sed -e 's/128, 128/64, 64/g; s/128, 16/64, 16/g' "$f" >"$src"
  fi
  want=$("$VXC" run "$src" --entry "$entry" "$@" | grep -E '^(checksum|result) ') || fail "$src: cpu run"
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

# ---- timing: one block per kernel (docs/b200.md), against the whole GPU ----
NVCC=${VXC_NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
"$NVCC" -O3 -o "$TMP/baselines" scripts/gpu/baselines.cu -lcublas || fail "building scripts/gpu/baselines.cu"
base=$("$TMP/baselines" 4096) || fail "baselines: $base"
echo "$base"
tflops=$(awk '/cublas_tf32_tflops/ {print $2}' <<<"$base")
gbps=$(awk '/copy_gbps/ {print $2}' <<<"$base")
# The GEMM example at 1024^3 in 64x64 tiles: 16 x 16 x 16 tiles.
g=$TMP/gemm64.vx
sed -e 's/128, 128/64, 64/g' examples/gemm.vx >"$g"
t=$("$VXC" run "$g" --target "$target" --arg a=256 --arg b=256 --arg c=256 --arg kt=16 --repeat 3 | awk '/^time_us/ {print $3}')
awk -v t="$t" -v ref="$tflops" 'BEGIN { f = 2 * 1024^3 / (t * 1e-6) / 1e12;
  printf "gemm 1024^3: %.1f us, %.3f TFLOP/s, %.4fx cuBLAS TF32 at 4096^3 (%.1f TFLOP/s)\n", t, f, f / ref, ref }'
# The stream example: 256 tiles of 64x64 f32 in, one out.
s=$TMP/stream64.vx
sed -e 's/128, 128/64, 64/g' examples/stream.vx >"$s"
t=$("$VXC" run "$s" --target "$target" --arg tiles=256 --repeat 3 | awk '/^time_us/ {print $3}')
awk -v t="$t" -v ref="$gbps" 'BEGIN { b = 256 * 64 * 64 * 4 / (t * 1e-6) / 1e9;
  printf "stream 256 tiles: %.1f us, %.1f GB/s read, %.4fx the copy bandwidth (%.1f GB/s)\n", t, b, b / ref, ref }'
echo "== done"
