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
