// The backends, one per target (src/target/Targets.def): what each cannot
// build (E0206, run by `vxc check --target T`, the language server and
// `vxc build`, so the three agree), and how it builds and runs. Commands
// dispatch here by target, never by comparing target names.
#pragma once

#include <string>
#include <vector>

#include "base/Source.h"
#include "diag/Sink.h"
#include "hir/Hir.h"
#include "target/Target.h"

namespace vx::driver {

struct Backend {
  target::TargetKind target;
  // E0206 for what this target cannot build, at the span build reports it.
  void (*legality)(const hir::Program& program, const base::SourceMap& sources, base::FileId file,
                   diag::Sink& sink);
  // Whether `vxc build --target T` produces more than `--emit=mlir`, and
  // whether `vxc run --target T` runs (false: a usage error names the target).
  bool builds;
  bool runs;
  // A CUDA target: the GPU architecture nvcc builds for (sm_100a); the
  // unit is a .cu over the CUDA intrinsic layer. Null for the others.
  const char* cudaArch;
};

const Backend& backendFor(target::TargetKind t);
// Installs the backends' legality into the check pipeline (Pipeline.h).
void registerBackends();

}  // namespace vx::driver
