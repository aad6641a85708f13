# `vxc build --emit=a,b,...` writes one artifact per kind from one check:
# default names from FILE (or from -o as a stem), `KIND=PATH` to name one;
# diagnostics (a warning) are printed once, not once per kind.
. "$(dirname "$0")/lib.bash" "$@"
mkdir -p "$TMP/w" && cd "$TMP/w"
SRC=$ROOT/examples/stream_out.vx
expect_status 0 "$VXC" build --emit=mlir,cpp,obj,abi "$SRC"
for f in stream_out.mlir stream_out.cpp stream_out.h stream_out.o stream_out.abi.json; do
  [ -s "$f" ] || fail "--emit=mlir,cpp,obj,abi wrote no $f"
done
grep -q 'vx.transfer_async' stream_out.mlir || fail "the .mlir is not VIR"
python3 -c 'import json; json.load(open("stream_out.abi.json"))' || fail "the abi is not JSON"
mkdir -p out
expect_status 0 "$VXC" build --emit=mlir,lib -o out/k "$SRC"
[ -s out/k.mlir ] && [ -s out/libk.so ] || fail "-o as a stem: $(ls out)"
expect_status 0 "$VXC" build --emit=obj=named.o,mlir=named.mlir "$SRC"
[ -s named.o ] && [ -s named.h ] && [ -s named.mlir ] || fail "KIND=PATH: $(ls)"
expect_status 0 "$VXC" build --target tpu --emit=vxdma,mlir -o t "$SRC"
[ -s t.vxdma ] && [ -s t.mlir ] || fail "tpu: $(ls)"
# A warning, once.
cat >warn.vx <<'VX'
fn f(tiles: &Vec<Tensor<f32, [128, 128]>>) on Topology::TensorCore {
  let unused = 3;
  matmul_acc(wait(transfer_async(tiles[0], Memory::VMEM)));
}
VX
expect_status 0 "$VXC" build --emit=mlir,cpp,obj warn.vx
[ "$(grep -c 'W0001' <<<"$ERR")" = 1 ] || fail "the warning is not printed once: $ERR"
# `-o DIR/`: the artifacts go into the folder, named after the file.
mkdir -p "$TMP/into"
expect_status 0 "$VXC" build --emit=cpp,obj -o "$TMP/into/" "$SRC"
stem=$(basename "$SRC" .vx)
[ -f "$TMP/into/$stem.cpp" ] && [ -f "$TMP/into/$stem.o" ] || fail "not named after the file: $(ls -a "$TMP/into")"
[ ! -e "$TMP/into/.cpp" ] || fail "a nameless .cpp was written"

# Usage errors.
expect_status 2 "$VXC" build --emit=obj,obj "$SRC"
contains "$ERR" "\`--emit\` names \`obj\` twice"
expect_status 2 "$VXC" build --emit=obj,wasm "$SRC"
contains "$ERR" "invalid value \`wasm\` for \`--emit\`"
expect_status 2 "$VXC" build --emit=obj= "$SRC"
contains "$ERR" "expected KIND=PATH"

# No artifact overwrites the source file, by its own name or another, and
# no two artifacts share a path; nothing is written then.
cp "$SRC" "$TMP/src.vx"
before=$(md5sum < "$TMP/src.vx")
for args in "--emit=mlir -o $TMP/src.vx" "-o $TMP/src.vx" "--emit=mlir=$TMP/src.vx,abi" \
            "--emit=cpp=$TMP/../$(basename "$TMP")/src.vx"; do
  # shellcheck disable=SC2086
  expect_status 2 "$VXC" build "$TMP/src.vx" $args
  contains "$ERR" "is the input file; writing it would overwrite"
done
ln -s src.vx "$TMP/link.vx"
expect_status 2 "$VXC" build "$TMP/src.vx" --emit=cpp -o "$TMP/link.vx"
contains "$ERR" "is the input file"
[ "$(md5sum < "$TMP/src.vx")" = "$before" ] || fail "the source file was overwritten"
cp "$SRC" "$TMP/k"
expect_status 2 "$VXC" build "$TMP/k" --emit=exe --entry stream -o "$TMP/k"
contains "$ERR" "is the input file"
expect_status 2 "$VXC" build "$TMP/src.vx" --emit=mlir=$TMP/same,abi=$TMP/same
contains "$ERR" "\`--emit=mlir\` and \`--emit=abi\` both write"
[ ! -e "$TMP/same" ] || fail "an artifact was written before the paths were checked"
# Nor does the C header written beside an object, a library or a unit: it
# would have replaced the object (`-o k.h`), another artifact, or a source
# file named `k.h` (its stem's header).
expect_status 2 "$VXC" build "$TMP/src.vx" --emit=obj -o "$TMP/k.h"
contains "$ERR" "the C header written beside the artifact would be \`$TMP/k.h\`, which is also an artifact of this build"
expect_status 2 "$VXC" build "$TMP/src.vx" --emit=cpp="$TMP/u.cpp",obj="$TMP/u.h"
contains "$ERR" "which is also an artifact of this build"
cp "$SRC" "$TMP/kern.h"
before=$(md5sum < "$TMP/kern.h")
expect_status 2 "$VXC" build "$TMP/kern.h" -o "$TMP/kern.o"
contains "$ERR" "which is the input file"
expect_status 2 "$VXC" build "$TMP/kern.h" --emit=lib -o "$TMP/libkern.so"
contains "$ERR" "which is the input file"
[ "$(md5sum < "$TMP/kern.h")" = "$before" ] || fail "the header overwrote the source file"
[ ! -e "$TMP/k.h" ] && [ ! -e "$TMP/u.cpp" ] || fail "an artifact was written before the header's path was checked"
# --symbol-prefix names the C entries (object, header guard, abi), so two
# kernels with a function of one name link together; not a C identifier's
# start, or a target without C entries, is a usage error.
expect_status 0 "$VXC" build "$SRC" --emit=obj=$TMP/p.o,abi=$TMP/p.json --symbol-prefix=tiled_
nm -g --defined-only "$TMP/p.o" | grep -q " T tiled_" || fail "no tiled_ entry in the object: $(nm -g --defined-only "$TMP/p.o")"
nm -g --defined-only "$TMP/p.o" | grep -q " T vx_" && fail "a vx_ entry is left in the prefixed object"
grep -q '"symbol": "tiled_' "$TMP/p.json" || fail "the abi does not name the prefixed symbol: $(cat "$TMP/p.json")"
grep -q '#ifndef VXGEN_TILED_' "$TMP/p.h" || fail "the header guard has no prefix: $(head -3 "$TMP/p.h")"
for bad in 9x "" "a-b" "x y"; do
  expect_status 2 "$VXC" build "$SRC" --symbol-prefix="$bad" -o "$TMP/q.o"
  contains "$ERR" "\`--symbol-prefix\` takes the start of a C identifier"
done
expect_status 2 "$VXC" build "$SRC" --target tpu --symbol-prefix=a_ -o "$TMP/q.vxdma"
contains "$ERR" "is for the targets with a C entry"
echo ok
