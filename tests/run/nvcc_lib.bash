# Shared by the tests that compile generated CUDA with nvcc
# (cuda_build.sh, cuda_grid_nvcc.sh): after `VXC=$1 REPO=$2`, sourced with
# what the test compiles, it finds nvcc (VXC_NVCC, PATH, /usr/local/cuda)
# or skips visibly (exit status 77), and defines TMP (removed at exit),
# fail and nv (nvcc as `vxc build` runs it).
#   . nvcc_lib.bash "the b200/h100 builds"
NVCC=${VXC_NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if [ ! -x "$NVCC" ]; then
  echo "SKIPPED: no nvcc (the CUDA toolkit is not installed); $1 are not compiled"
  exit 77
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
nv() { "$NVCC" -std=c++17 -O3 --expt-relaxed-constexpr -I "$REPO/include" "$@"; }
