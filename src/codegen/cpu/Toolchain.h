// The system tools the cpu target drives: the C++ compiler (g++, or $CXX),
// and running what it built. No MLIR here.
#pragma once

#include <string>
#include <vector>

namespace vx::cpu {

enum class Artifact { Object, SharedLibrary, Executable };

struct ProcessResult {
  int status = -1;      // exit status; 128 + signal when killed; -1 when it could not start
  std::string output;   // stdout and stderr, interleaved
  std::string stdoutText, stderrText;  // when captured apart
};

// Runs argv[0] (searched on PATH) and waits. With `separate`, stdout and
// stderr are kept apart; otherwise both go to `output`.
ProcessResult runProcess(const std::vector<std::string>& argv, bool separate = false);

// Where vx/runtime.h lives: $VXC_INCLUDE, else PREFIX/include beside an
// installed PREFIX/bin/vxc, else the source tree vxc was built from.
std::string runtimeIncludeDir();
// Why the runtime headers cannot be used (a usage error's message), or "".
std::string runtimeIncludeError();

// The compiler command for `source` -> `output` (for messages and tests).
// `targetCpu`: "" builds for the compiler's portable baseline (what `vxc
// build` ships), "native" for this machine (what `vxc run` runs), or a named
// level (`x86-64-v3`), passed as `-march=`.
std::vector<std::string> compilerCommand(const std::string& source, const std::string& output, Artifact kind,
                                         const std::string& targetCpu);
// Whether `name` is a `--target-cpu` value vxc passes on: letters, digits,
// `-`, `_` and `.`.
bool validTargetCpu(const std::string& name);

struct CompileResult {
  bool ok = false;
  std::string command;  // as a shell line, for the error message
  std::string log;      // the compiler's output
};
CompileResult compileCpp(const std::string& source, const std::string& output, Artifact kind,
                         const std::string& targetCpu);
// Runs a compiler command line (any of the commands below).
CompileResult runCompiler(const std::vector<std::string>& command);

// ---- the CUDA toolchain of b200 and h100 (docs/b200.md) ----
// nvcc: $VXC_NVCC, else on PATH, else /usr/local/cuda/bin/nvcc; empty when absent.
std::string findNvcc();
// Whether this machine has an NVIDIA GPU to run on: its device nodes or the
// driver's /proc entry (WSL's /dev/dxg too). $VXC_GPU=0|1 overrides.
bool gpuPresent();
// `nvcc -arch=ARCH` (sm_100a, sm_90a) on a generated .cu (or a harness that
// includes one).
std::vector<std::string> cudaCompilerCommand(const std::string& nvcc, const std::string& source,
                                             const std::string& output, Artifact kind, const std::string& arch);
// The host compiler on a harness that includes a generated .cu: the
// interpreter (vx/cuda/interpret.h) in place of the GPU.
std::vector<std::string> interpreterCommand(const std::string& source, const std::string& output,
                                            const std::string& arch, Artifact kind = Artifact::Executable);

}  // namespace vx::cpu
