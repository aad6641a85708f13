# Shared by the fuzz scripts: configures build-fuzz/ once (clang-14,
# RelWithDebInfo, -DVXC_FUZZ=ON) and builds one fuzzer.
#   build_fuzzer TARGET   -> sets FUZZER to the built binary
SECONDS_TO_RUN=${1:-60}
BUILD_DIR=${BUILD_DIR:-build-fuzz}
JOBS=${JOBS:-2}

build_fuzzer() {
  if [ ! -f "$BUILD_DIR/build.ninja" ]; then
    CXX=clang++-14 cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DVXC_FUZZ=ON -DPython3_EXECUTABLE=/usr/bin/python3
  fi
  ninja -C "$BUILD_DIR" -j"$JOBS" "$1"
  FUZZER=$BUILD_DIR/fuzz/$1
}
