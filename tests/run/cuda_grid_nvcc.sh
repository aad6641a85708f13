# The grid examples through nvcc (docs/b200.md "Blocks and tensor maps",
# "Grids"): examples/gemm_rowmajor.vx and examples/rows.vx build for
# sm_100a and sm_90a with `vxc build` printing nothing and no register
# spills; their PTX (assembled by ptxas in the same builds) holds the
# tensor-map copy completing on an mbarrier and the tensor-map store, with
# the GEMM's tensor cores; the objects ask the CUDA runtime for the
# driver's encoder (cudaGetDriverEntryPointByVersion) and never name
# cuTensorMapEncodeTiled, and an executable links no driver library, so it
# starts on a machine without one and says so (exit status 101), or runs
# where there is a GPU. The GEMM's SASS has a loop with the tensor-map copy,
# its mbarrier and the tensor cores. Skipped, visibly (exit status 77),
# without the CUDA toolkit; the SASS part without cuobjdump.
#   cuda_grid_nvcc.sh VXC REPO
set -u
VXC=$1 REPO=$2
. "$(dirname "$0")/nvcc_lib.bash" "the grid examples"
for name in gemm_rowmajor rows; do
  src=$REPO/examples/$name.vx
  for t in b200 h100; do
    out=$("$VXC" build "$src" --target "$t" -o "$TMP/$name.$t.o" 2>&1) || fail "vxc build --target $t $name: $out"
    [ -z "$out" ] || fail "vxc build --target $t $name printed (warnings are failures):
$out"
    nm -u "$TMP/$name.$t.o" | grep -q cudaGetDriverEntryPointByVersion ||
      fail "$name ($t): the object does not ask the runtime for the driver's tensor-map encoder"
    ! nm "$TMP/$name.$t.o" | grep -q cuTensorMapEncodeTiled || fail "$name ($t): the object names cuTensorMapEncodeTiled"
  done
  "$VXC" build "$src" --target b200 --emit=cu -o "$TMP/$name.cu" || fail "emit $name.cu"
  for arch in sm_100a sm_90a; do
    v=$(nv -arch=$arch -c "$TMP/$name.cu" -o "$TMP/$name.$arch.o" -Xptxas -v 2>&1) || fail "nvcc -Xptxas -v $name ($arch): $v"
    spills=$(grep -E '[1-9][0-9]* bytes spill (stores|loads)' <<<"$v")
    [ -z "$spills" ] || fail "$name spills registers on $arch:
$v"
    nv -arch=$arch -ptx "$TMP/$name.cu" -o "$TMP/$name.$arch.ptx" || fail "nvcc -ptx $name ($arch)"
    for want in 'cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes' \
      'cp.async.bulk.tensor.2d.global.shared::cta.bulk_group' 'mbarrier.arrive.expect_tx.shared::cta.b64' \
      'mbarrier.try_wait.parity.shared::cta.b64' 'cp.async.bulk.wait_group 0'; do
      grep -qF "$want" "$TMP/$name.$arch.ptx" || fail "$name.$arch.ptx has no \`$want\`"
    done
  done
  echo "ok nvcc $name: sm_100a and sm_90a, no spills, tensor-map copies and stores, the driver's encoder found at run time"
done
grep -qF 'tcgen05.mma.cta_group::1.kind::tf32' "$TMP/gemm_rowmajor.sm_100a.ptx" || fail "gemm_rowmajor.sm_100a.ptx has no tcgen05.mma"
grep -qF 'wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32' "$TMP/gemm_rowmajor.sm_90a.ptx" ||
  fail "gemm_rowmajor.sm_90a.ptx has no wgmma"
echo "ok ptx: the GEMM's tensor cores on sm_100a and sm_90a"

# An executable links the CUDA runtime statically and no driver library.
out=$("$VXC" build "$REPO/examples/rows.vx" --target b200 --emit=exe -o "$TMP/rows" 2>&1) || fail "vxc build --emit=exe: $out"
if readelf -d "$TMP/rows" | grep -E 'NEEDED' | grep -qE 'libcuda\.so'; then
  fail "the executable needs the driver library:
$(readelf -d "$TMP/rows" | grep NEEDED)"
fi
out=$("$TMP/rows" --arg m=64 2>&1)
rc=$?
case $rc in
  0) echo "ok the executable ran on this machine's GPU: $(grep -E '^checksum' <<<"$out")" ;;
  101) grep -qF 'error: CUDA error in `rows`' <<<"$out" || fail "the executable without a GPU printed:
$out"
    echo "ok the executable starts without a driver and says so: $(head -1 <<<"$out")" ;;
  *) fail "the executable exited with status $rc:
$out" ;;
esac

CUOBJDUMP=${VXC_CUOBJDUMP:-}
for c in "$(command -v cuobjdump || true)" "$(dirname "$NVCC")/cuobjdump" /opt/vxc/cuda-tools/bin/cuobjdump; do
  if [ -z "$CUOBJDUMP" ] && [ -n "$c" ] && [ -x "$c" ] && [ -x "$(dirname "$c")/nvdisasm" ]; then CUOBJDUMP=$c; fi
done
if [ -z "$CUOBJDUMP" ]; then
  echo "SKIPPED: the SASS test (no cuobjdump and nvdisasm; scripts/install-deps.sh fetches them)"
  exit 0
fi
for arch in sm_100a sm_90a; do
  PATH=$(dirname "$CUOBJDUMP"):$PATH "$CUOBJDUMP" -sass "$TMP/gemm_rowmajor.$arch.o" >"$TMP/g.$arch.sass" ||
    fail "cuobjdump -sass ($arch)"
  case $arch in
    sm_100a) want="UTMALDG SYNCS.ARRIVE.TRANS64 SYNCS.PHASECHK.TRANS64.TRYWAIT UTCHMMA UTCBAR" ;;
    sm_90a) want="UTMALDG SYNCS.ARRIVE.TRANS64 SYNCS.PHASECHK.TRANS64.TRYWAIT HGMMA" ;;
  esac
  # shellcheck disable=SC2086
  loop=$(python3 "$REPO/tests/run/sass_loop.py" "$TMP/g.$arch.sass" _Z8vxk_gemm $want) || fail "gemm_rowmajor SASS ($arch): $loop"
  grep -q 'UTMASTG' "$TMP/g.$arch.sass" || fail "gemm_rowmajor SASS ($arch) has no tensor-map store (UTMASTG)"
  echo "ok sass $arch: $loop"
done
