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

// Where vx/runtime.h lives: $VXC_INCLUDE, else the source tree vxc was built
// from.
std::string runtimeIncludeDir();

// The compiler command for `source` -> `output` (for messages and tests).
std::vector<std::string> compilerCommand(const std::string& source, const std::string& output, Artifact kind);

struct CompileResult {
  bool ok = false;
  std::string command;  // as a shell line, for the error message
  std::string log;      // the compiler's output
};
CompileResult compileCpp(const std::string& source, const std::string& output, Artifact kind);

}  // namespace vx::cpu
