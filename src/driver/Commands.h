// One function per `vxc` subcommand; main.cpp dispatches.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vx::driver {

int cmdCheck(const std::vector<std::string>& args);
int cmdFix(const std::vector<std::string>& args);
int cmdExplain(const std::vector<std::string>& args);
int cmdTestUi(const std::vector<std::string>& args);
int cmdLsp(const std::vector<std::string>& args);
int cmdTune(const std::vector<std::string>& args);  // CmdTune.cpp

}  // namespace vx::driver

// ---- `vxc build` and `vxc run` (CmdBuild.cpp, CmdRun.cpp) ----
#include <functional>

#include "codegen/cpu/Cpu.h"
#include "codegen/cpu/Toolchain.h"
#include "driver/Args.h"
#include "driver/Pipeline.h"

namespace vx::driver {

int cmdBuild(const std::vector<std::string>& args);
int cmdRun(const std::vector<std::string>& args);

// What build and run share.
struct FrontOptions {
  std::string file;
  std::string target = "cpu";
  bool syncBaseline = false;
  bool wantMlir = false;
  bool debugInfo = false;
  Format format = Format::Human;
  bool color = false;
  bool unchecked = false;  // hidden --unchecked (tests only): build despite E6004/E6005
  diag::LintOptions lints;  // -D/-W/-A
  unsigned solverRlimit = 2'000'000;  // --solver-rlimit
  bool quietWarnings = false;  // print only errors (the later artifacts of `--emit=a,b`)
  std::vector<std::string> consts;  // --const NAME=VALUE (driver/Consts.h)
  std::string symbolPrefix = "vx_";  // build --symbol-prefix: the C entries' names
};

// The flags of `build` and `run` that fill FrontOptions, after `own`.
std::vector<FlagSpec> withFrontFlags(std::vector<FlagSpec> own);
// Fills `out` from them (the file is the only positional argument). 0, or 2
// after printing a usage error.
int frontOptions(const ParsedArgs& args, const std::string& command, FrontOptions& out);

// The one read → check → VIR path of every backend: reads options.file,
// checks it for options.target (the backend reports its own legality, as
// it lowers), builds VIR and hands it to `lower`, which may report more
// diagnostics and returns whether it produced its output. Prints the
// diagnostics. 0 lowered, 1 diagnostics stopped it, 2 usage error printed.
using LowerVir = std::function<bool(dialect::Vir& vir, base::FileId file, diag::Sink& sink)>;
int frontToVir(const FrontOptions& options, const LowerVir& lower);

// Check FILE, lower to VIR, emit C++ (cpu).
struct CpuProgram {
  std::string mlir;
  std::string source, header, headerName;
  std::vector<cpu::Entry> entries;
  bool runtimeChecks = false;  // some function is checked at run time (cpu only)
};
// 0, or the exit status after printing diagnostics (1) or a usage error (2).
int compileToCpu(const FrontOptions& options, CpuProgram& out);
// Runs the C++ compiler on generated code; a failure is an internal error (2).
int compileGenerated(const std::string& source, const std::string& output, cpu::Artifact kind,
                     const std::string& origin);
// 0, or an internal error (2) with the compiler's command and log.
int compiled(const cpu::CompileResult& result, const std::string& origin, const std::string& compiler);
// `vxc build --target b200|h100` past the front end: .cu, or nvcc for ARCH.
int buildCuda(const FrontOptions& options, const CpuProgram& program, const std::string& emit,
              const std::string& output, const std::string& entry, const std::string& nvcc, const std::string& arch);
// The entry called `name` (or the only one when `name` is empty); null with
// `error` set otherwise.
const cpu::Entry* findEntry(const CpuProgram& program, const std::string& name, std::string& error);
int internalError(const std::string& message);

// ---- the tpu target (CmdTpu.cpp) ----
// Writes the .vxdma program of `entry` (empty: the only possible entry).
int buildTpu(const FrontOptions& options, const std::string& entry, const std::string& output);
// Builds and simulates it; prints checksums and vxsim's totals. Exit status
// 0 ran, 1 program errors or a trap, 2 usage or cannot load, 3 a runtime fault.
struct BufferSpec;
struct TpuRun {
  std::string entry;                    // empty: the only possible entry
  uint64_t seed = 0;
  std::vector<std::string> args;        // `--arg NAME=VALUE`
  std::vector<std::string> inputs;      // `--input NAME=FILE.npy`
  std::string outputDir;                // `--output DIR`: each output as DIR/NAME.npy
  bool quiet = false;                   // print nothing on success (`--compare`'s other run)
  std::string traceOut, timelineOut;    // `--trace T.json`, `--timeline T.svg`
  std::vector<BufferSpec>* specs = nullptr;  // gets the entry's parameters
  // Get the entry's name and the arguments with the extents the inputs gave.
  std::string* entryOut = nullptr;
  std::vector<std::string>* argsOut = nullptr;
};
int runTpu(const FrontOptions& options, const TpuRun& run);

// Writes `text` to `path`; false with `error` set when it cannot.
bool writeFile(const std::string& path, const std::string& text, std::string& error);
// Whether writing `output` would overwrite the source file `input` (the
// same path, or another name of the same file): rustc refuses that too.
bool namesInput(const std::string& input, const std::string& output);

// A folder under /tmp, removed with everything in it.
struct TempDir {
  std::string path;  // empty when it could not be made
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

}  // namespace vx::driver
