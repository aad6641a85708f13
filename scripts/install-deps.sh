#!/usr/bin/env bash
# Installs every Debian 12 package that building and testing vxc needs.
# Run as root on a fresh machine; safe to run again.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends \
  ca-certificates cmake ninja-build g++ make pkg-config python3 git \
  default-jre-headless antlr4 libantlr4-runtime-dev uuid-dev \
  libz3-dev llvm-16-dev llvm-16-tools libmlir-16-dev mlir-16-tools \
  doctest-dev nlohmann-json3-dev libfmt-dev libjemalloc-dev \
  python3-numpy python3-venv python3-setuptools python3-wheel python3-pip \
  clang-14 libclang-rt-14-dev ccache libopenblas-dev neovim

# ml_dtypes, for bf16 arrays in the Python package (NumPy has no bf16; JAX
# uses this package), as a wheel from PyPI that the package's test installs
# into its virtual environment. 0.5.1 is the newest that takes Debian 12's
# NumPy 1.24. A failed download leaves the bf16 tests skipped, visibly.
WHEELS=/opt/vxc/wheels
if ! ls "$WHEELS"/ml_dtypes-0.5.1-*.whl >/dev/null 2>&1; then
  $SUDO mkdir -p "$WHEELS"
  if ! $SUDO /usr/bin/python3 -m pip download -q --no-deps --only-binary=:all: -d "$WHEELS" ml_dtypes==0.5.1; then
    echo "warning: could not download ml_dtypes from PyPI; the Python package's bf16 tests will be skipped" >&2
  fi
fi

# cuobjdump and nvdisasm, for the SASS test of the b200/h100 targets
# (tests/run/cuda_build.sh), from NVIDIA's wheels on PyPI: the CUDA toolkit on
# these machines comes without them. Only where nvcc is installed; a failed
# download leaves that test skipped, visibly.
CUDA_TOOLS=/opt/vxc/cuda-tools
if { command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; } && [ ! -x "$CUDA_TOOLS/bin/nvdisasm" ]; then
  tmp=$(mktemp -d)
  if python3 -m pip download -q --no-deps --only-binary=:all: -d "$tmp" \
      nvidia-cuda-cuobjdump==13.5.37 nvidia-cuda-nvdisasm==13.5.37; then
    for w in "$tmp"/*.whl; do python3 -m zipfile -e "$w" "$tmp/x"; done
    $SUDO mkdir -p "$CUDA_TOOLS/bin"
    $SUDO install -m 755 "$tmp"/x/nvidia/cu13/bin/cuobjdump "$tmp"/x/nvidia/cu13/bin/nvdisasm "$CUDA_TOOLS/bin/"
  else
    echo "warning: could not download cuobjdump and nvdisasm from PyPI; the SASS test will be skipped" >&2
  fi
  rm -rf "$tmp"
fi
