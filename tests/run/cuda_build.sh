# The b200 and h100 targets through nvcc (docs/b200.md): every example, at
# its checked-in tile sizes (per-target consts), builds as an object for
# sm_100a and sm_90a with no warnings and no register spills, its PTX
# holds the pipeline: bulk copies
# completing on mbarriers with expected transaction bytes, parity waits,
# bulk stores in bulk groups, and the GEMM's tensor-core pipeline in order
# (FileCheck, tests/run/cuda_ptx/); the GEMM's SASS has a loop with the
# copies, barriers and tensor-core instructions. Skipped, visibly (exit
# status 77), without the CUDA toolkit; the SASS part without cuobjdump.
#   cuda_build.sh VXC REPO
set -u
VXC=$1 REPO=$2
. "$(dirname "$0")/nvcc_lib.bash" "the b200/h100 builds"
FILECHECK=${FILECHECK:-$(command -v FileCheck-16 || echo /usr/lib/llvm-16/bin/FileCheck)}
# Every example: `vxc build` for both machines prints nothing (nvcc's
# warnings fail), and the same source through nvcc with `-Xptxas -v` shows no
# register spills in any kernel.
for f in "$REPO"/examples/*.vx; do
  src=$f  # built at its checked-in tile sizes (per-target consts), no edits
  for t in b200 h100; do
    out=$("$VXC" build "$src" --target "$t" -o "$TMP/k.o" 2>&1) || fail "vxc build --target $t $src: $out"
    [ -z "$out" ] || fail "vxc build --target $t $src printed (warnings are failures):
$out"
  done
  "$VXC" build "$src" --target b200 --emit=cu -o "$TMP/e.cu" || fail "emit $src"
  for arch in sm_100a sm_90a; do
    v=$(nv -arch=$arch -c "$TMP/e.cu" -o "$TMP/e.o" -Xptxas -v 2>&1) || fail "nvcc -Xptxas -v $src ($arch): $v"
    spills=$(grep -E '[1-9][0-9]* bytes spill (stores|loads)' <<<"$v")
    [ -z "$spills" ] || fail "$src spills registers on $arch:
$v"
  done
  echo "ok nvcc $(basename "$src") b200 h100, no spills"
done
# The PTX of the canonical double buffer.
"$VXC" build "$REPO/examples/stream.vx" --target b200 --emit=cu -o "$TMP/stream.cu" || fail "emit stream.cu"
nv -arch=sm_100a -ptx "$TMP/stream.cu" -o "$TMP/stream.ptx" || fail "nvcc -ptx stream.cu"
for want in 'mbarrier.init.shared::cta.b64' 'fence.mbarrier_init.release.cluster' \
  'mbarrier.arrive.expect_tx.shared::cta.b64' \
  'cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes' \
  'mbarrier.try_wait.parity.shared::cta.b64' 'fence.proxy.async.shared::cta' \
  '.entry _Z10vxk_stream'; do
  grep -qF "$want" "$TMP/stream.ptx" || fail "stream.ptx has no \`$want\`"
done
so=$REPO/examples/gemm.vx
"$VXC" build "$so" --target b200 --emit=cu -o "$TMP/so.cu" || fail "emit so.cu"
for arch in sm_100a sm_90a; do
  nv -arch=$arch -ptx "$TMP/so.cu" -o "$TMP/so.$arch.ptx" || fail "nvcc -ptx gemm.cu ($arch)"
done
for want in 'cp.async.bulk.global.shared::cta.bulk_group' 'cp.async.bulk.commit_group' 'cp.async.bulk.wait_group 0'; do
  grep -qF "$want" "$TMP/so.sm_100a.ptx" || fail "gemm.ptx has no \`$want\`"
done
echo "ok ptx: bulk copies on mbarriers, parity waits, bulk stores"
# Hardware readiness (docs/b200.md): what the one-thread interpreter cannot
# see. (1) Generic writes of global memory are fenced from the bulk copies
# that follow (`fence.proxy.async.global` before a copy is issued). (2) Every
# mbarrier wait is bounded by the cycle counter (a hang on hardware traps
# with the barrier, parity and line). (3) An element assignment is made by
# one thread between two block barriers, not by all 128 at once.
grep -qF 'fence.proxy.async.global' "$TMP/stream.ptx" || fail "stream.ptx: no fence.proxy.async.global before its bulk copies"
grep -qF '%clock64' "$TMP/stream.ptx" || fail "stream.ptx: the mbarrier waits are not bounded by %clock64"
cat >"$TMP/element.vx" <<'VX'
fn element(x: &Tensor<f32, [64]>, out: &mut Tensor<f32, [64]>) on Topology::TensorCore {
  let mut b = transfer(x, Memory::VMEM);
  b[3] += 1.0;
  store(&b, out);
}
VX
"$VXC" build "$TMP/element.vx" --target b200 --emit=cu -o "$TMP/element.cu" || fail "emit element.cu"
for arch in sm_100a sm_90a; do
  nv -arch=$arch -ptx "$TMP/element.cu" -o "$TMP/element.$arch.ptx" || fail "nvcc -ptx element.cu ($arch)"
  python3 - "$TMP/element.$arch.ptx" <<'PY' || fail "element.$arch.ptx: \`b[3] += 1.0\` is not written by one thread between two barriers"
import re, sys
lines = [l.strip() for l in open(sys.argv[1]) if l.strip() and not l.strip().startswith("//")]
stores = [i for i, l in enumerate(lines) if l.startswith("st.shared.f32")]
assert len(stores) == 1, f"{len(stores)} shared f32 stores"
i = stores[0]
before, after = lines[max(0, i - 6):i], lines[i + 1:i + 4]
bar = [k for k, l in enumerate(before) if re.match(r"bar(rier)?\.sync\s+0", l)]
assert bar, "no barrier before the store"
assert any(re.match(r"@%p\d+ bra", l) for l in before[bar[-1]:]), "the store is not skipped by the other threads"
assert any(re.match(r"bar(rier)?\.sync\s+0", l) for l in after), "no barrier after the store"
PY
done
echo "ok ptx: proxy fences for global memory, bounded mbarrier waits, single-writer element stores"
# The GEMM's pipeline in order, for both machines (tests/run/cuda_ptx/):
# barrier init, expect-tx, TMA issue, phase wait, MMA issue, commit.
for arch in sm_100a sm_90a; do
  "$FILECHECK" --input-file="$TMP/so.$arch.ptx" "$REPO/tests/run/cuda_ptx/gemm.$arch.check" || fail "gemm.$arch.ptx"
done
echo "ok ptx: the GEMM's tcgen05 (sm_100a) and wgmma (sm_90a) pipelines"

# SASS: the GEMM kernel has a loop that issues the tile copies (UBLKCP),
# arms and waits their mbarriers (SYNCS) and drives the tensor cores
# (UTCHMMA and its commit UTCBAR on sm_100a, HGMMA on sm_90a). cuobjdump and
# nvdisasm come from PyPI (scripts/install-deps.sh) where the toolkit lacks them.
CUOBJDUMP=${VXC_CUOBJDUMP:-}
for c in "$(command -v cuobjdump || true)" "$(dirname "$NVCC")/cuobjdump" /opt/vxc/cuda-tools/bin/cuobjdump; do
  if [ -z "$CUOBJDUMP" ] && [ -n "$c" ] && [ -x "$c" ] && [ -x "$(dirname "$c")/nvdisasm" ]; then CUOBJDUMP=$c; fi
done
if [ -z "$CUOBJDUMP" ]; then
  echo "SKIPPED: the SASS test (no cuobjdump and nvdisasm; scripts/install-deps.sh fetches them)"
else
  for arch in sm_100a sm_90a; do
    nv -arch=$arch -c "$TMP/so.cu" -o "$TMP/so.$arch.o" 2>/dev/null || fail "nvcc -c gemm.cu ($arch)"
    PATH=$(dirname "$CUOBJDUMP"):$PATH "$CUOBJDUMP" -sass "$TMP/so.$arch.o" >"$TMP/so.$arch.sass" || fail "cuobjdump -sass ($arch)"
    case $arch in
      sm_100a) want="UBLKCP.S.G SYNCS.ARRIVE.TRANS64 SYNCS.PHASECHK.TRANS64.TRYWAIT UTCHMMA UTCBAR" ;;
      sm_90a) want="UBLKCP.S.G SYNCS.ARRIVE.TRANS64 SYNCS.PHASECHK.TRANS64.TRYWAIT HGMMA" ;;
    esac
    # shellcheck disable=SC2086
    loop=$(python3 "$REPO/tests/run/sass_loop.py" "$TMP/so.$arch.sass" _Z8vxk_gemm $want) || fail "gemm SASS ($arch): $loop"
    if [ $arch = sm_100a ]; then
      grep -q 'LDTM' "$TMP/so.$arch.sass" || fail "gemm SASS (sm_100a) reads no tensor memory (LDTM)"
    fi
    echo "ok sass $arch: $loop"
  done
fi
