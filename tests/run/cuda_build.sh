# The b200 and h100 targets through nvcc (docs/b200.md): every example that
# fits shared memory (the others with their tiles shrunk to 64x64, as in
# cuda_interpret.sh) builds as an object for sm_100a and sm_90a with no
# warnings, and its PTX holds the pipeline: bulk copies completing on
# mbarriers with expected transaction bytes, parity waits, bulk stores in
# bulk groups. Skipped, visibly (exit status 77), without the CUDA toolkit.
#   cuda_build.sh VXC REPO
set -u
VXC=$1 REPO=$2
NVCC=${VXC_NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if [ ! -x "$NVCC" ]; then
  echo "SKIPPED: no nvcc (the CUDA toolkit is not installed); the b200/h100 builds are not compiled"
  exit 77
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
for f in "$REPO"/examples/*.vx; do
  src=$f
  if "$VXC" check --target b200 "$f" 2>&1 | grep -q E6007; then
    src=$TMP/$(basename "$f")
    sed -e 's/128, 128/64, 64/g; s/128, 16/64, 16/g' "$f" >"$src"
  fi
  for t in b200 h100; do
    out=$("$VXC" build "$src" --target "$t" -o "$TMP/k.o" 2>&1) || fail "vxc build --target $t $src: $out"
    [ -z "$out" ] || fail "vxc build --target $t $src printed (warnings are failures):
$out"
  done
  echo "ok nvcc $(basename "$src") b200 h100"
done
# The PTX of the canonical double buffer.
"$VXC" build "$REPO/examples/stream.vx" --target b200 --emit=cu -o "$TMP/stream.cu" || fail "emit stream.cu"
"$NVCC" -std=c++17 -arch=sm_100a --expt-relaxed-constexpr -I "$REPO/include" -ptx "$TMP/stream.cu" -o "$TMP/stream.ptx" ||
  fail "nvcc -ptx stream.cu"
for want in 'mbarrier.init.shared::cta.b64' 'fence.mbarrier_init.release.cluster' \
  'mbarrier.arrive.expect_tx.shared::cta.b64' \
  'cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes' \
  'mbarrier.try_wait.parity.shared::cta.b64' 'fence.proxy.async.shared::cta' \
  '.entry _Z10vxk_stream'; do
  grep -qF "$want" "$TMP/stream.ptx" || fail "stream.ptx has no \`$want\`"
done
so=$REPO/examples/gemm.vx
[ -f "$TMP/gemm.vx" ] && so=$TMP/gemm.vx  # its tiles shrunk above
"$VXC" build "$so" --target b200 --emit=cu -o "$TMP/so.cu" || fail "emit so.cu"
"$NVCC" -std=c++17 -arch=sm_100a --expt-relaxed-constexpr -I "$REPO/include" -ptx "$TMP/so.cu" -o "$TMP/so.ptx" ||
  fail "nvcc -ptx gemm.cu"
for want in 'cp.async.bulk.global.shared::cta.bulk_group' 'cp.async.bulk.commit_group' 'cp.async.bulk.wait_group 0'; do
  grep -qF "$want" "$TMP/so.ptx" || fail "gemm.ptx has no \`$want\`"
done
echo "ok ptx: bulk copies on mbarriers, parity waits, bulk stores"
