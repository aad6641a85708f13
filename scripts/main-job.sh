#!/usr/bin/env bash
# The main job: install every dependency, build vxc, then check the canonical
# example (examples/stream.vx), build it for the cpu and tpu targets, and run
# it on the CPU and on the TPU simulator (the checksums must agree).
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
echo "== vxc run --target cpu"
"$VXC" run examples/stream.vx --entry stream --target cpu --arg tiles=8 | tee "$OUT/cpu.txt"
echo "== vxc run --target tpu (vxsim)"
"$VXC" run examples/stream.vx --entry stream --target tpu --arg tiles=8 | tee "$OUT/tpu.txt"
if [ "$(grep '^checksum' "$OUT/cpu.txt")" != "$(grep '^checksum' "$OUT/tpu.txt")" ]; then
  echo "error: cpu and tpu checksums differ" >&2
  exit 1
fi
echo "== checksums agree on cpu and tpu"
echo "== a broken variant is rejected with its diagnostics:"
if "$VXC" check --color=never tests/examples/bad/dropped.vx; then
  echo "error: a broken program was accepted" >&2
  exit 1
fi
echo "== main job done"
