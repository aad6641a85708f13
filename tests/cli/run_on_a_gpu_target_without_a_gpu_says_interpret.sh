# With the CUDA toolkit but no GPU (a build machine), `vxc run --target b200`
# says so before building and names `--interpret`, instead of a CUDA driver
# error from the harness. A stand-in nvcc on PATH plays the toolkit.
. "$(dirname "$0")/lib.bash" "$@"
mkdir -p "$TMP/bin"
printf '#!/bin/sh\necho "stand-in nvcc must not be run" >&2\nexit 1\n' > "$TMP/bin/nvcc"
chmod +x "$TMP/bin/nvcc"
for target in b200 h100; do
  VXC_GPU=0 PATH="$TMP/bin:$PATH" expect_status 2 "$VXC" run "$ROOT/examples/stream.vx" --target $target
  contains "$ERR" "needs an NVIDIA GPU, and this machine has none"
  contains "$ERR" "vxc run --target $target --interpret"
done
# Without the toolkit, the message it always gave.
VXC_NVCC=/nonexistent expect_status 2 "$VXC" run "$ROOT/examples/stream.vx" --target b200
contains "$ERR" "needs the CUDA toolkit and a GPU; \`--interpret\`"
echo ok
