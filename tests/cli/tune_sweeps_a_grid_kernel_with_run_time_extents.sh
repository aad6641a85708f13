#!/usr/bin/env bash
# `vxc tune` on a grid kernel with run-time extents (examples/gemm_rowmajor.vx):
# the extents come from `--arg`, every combination is built and run on tpu
# (simulated cycles), those the target cannot build are listed as rejected
# with their first error, and the winner's line is accepted by `vxc run`.
source "$(dirname "$0")/lib.bash"
EX=$ROOT/examples/gemm_rowmajor.vx
expect_status 0 "$VXC" tune "$EX" --entry gemm --target tpu --const BM=64,128 --const BK=128,256 \
  --arg m=256 --arg n=256 --arg k=256 -o "$TMP/best"
contains "$OUT" "BM   BK   cycles"
contains "$OUT" "rejected:"
contains "$OUT" "--const BM=64 --const BK=256: error[E0206]"
contains "$OUT" "best: --const BM=128 --const BK=128"
read -r -a best <"$TMP/best"
expect_status 0 "$VXC" run "$EX" --entry gemm --target tpu "${best[@]}" --arg m=256 --arg n=256 --arg k=256
contains "$OUT" "checksum c"
echo ok
