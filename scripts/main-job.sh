#!/usr/bin/env bash
# The main job: install every dependency, build vxc, then check the canonical
# example (examples/stream.vx), build it for every target (cpu, tpu, b200,
# h100: CUDA source, and objects where nvcc is installed), and run it on the
# CPU, on the TPU simulator and under the b200 interpreter (the checksums
# must agree).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
VXC=build/src/driver/vxc
OUT=build/main-job
mkdir -p "$OUT"
echo "== vxc check examples/stream.vx"
"$VXC" check examples/stream.vx
echo "   clean: no diagnostics"
echo "== vxc build --target cpu"
"$VXC" build examples/stream.vx --target cpu -o "$OUT/stream.o"
echo "== vxc build --target tpu"
"$VXC" build examples/stream.vx --target tpu -o "$OUT/stream.vxdma"
for t in b200 h100; do
  echo "== vxc build --target $t"
  "$VXC" build examples/stream.vx --target $t --emit=cu -o "$OUT/stream-$t.cu"
  if command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; then
    "$VXC" build examples/stream.vx --target $t -o "$OUT/stream-$t.o"
    echo "   built with nvcc: $OUT/stream-$t.o"
  else
    echo "   no nvcc here: CUDA source only ($OUT/stream-$t.cu)"
  fi
done
echo "== vxc run --target cpu"
"$VXC" run examples/stream.vx --entry stream --target cpu --arg tiles=8 | tee "$OUT/cpu.txt"
echo "== vxc run --target tpu (vxsim)"
"$VXC" run examples/stream.vx --entry stream --target tpu --arg tiles=8 | tee "$OUT/tpu.txt"
echo "== vxc run --target b200 --interpret (the CUDA source on the CPU)"
"$VXC" run examples/stream.vx --entry stream --target b200 --interpret --arg tiles=8 | tee "$OUT/b200.txt"
for t in tpu b200; do
  if [ "$(grep '^checksum' "$OUT/cpu.txt")" != "$(grep '^checksum' "$OUT/$t.txt")" ]; then
    echo "error: cpu and $t checksums differ" >&2
    exit 1
  fi
done
echo "== checksums agree on cpu, tpu and b200"
echo "== a broken variant is rejected with its diagnostics:"
if "$VXC" check --color=never tests/examples/bad/dropped.vx; then
  echo "error: a broken program was accepted" >&2
  exit 1
fi
echo "== main job done"
