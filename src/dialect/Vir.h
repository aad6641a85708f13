// VIR for the driver, without MLIR headers: lower checked HIR to the `vx`
// dialect, run the passes, print. Backends that walk the IR include
// VirImpl.h instead (docs/dialect.md).
#pragma once

#include <memory>
#include <string>

#include "base/Source.h"
#include "diag/Sink.h"
#include "hir/Hir.h"

namespace vx::dialect {

struct VirOptions {
  std::string target = "cpu";
  bool syncBaseline = false;  // run --sync-baseline after lowering
  // Locations keep only byte spans (LowerHir.h): for `vxc check`'s target
  // legality, which reports diagnostics and never prints the module.
  bool spanOnlyLocations = false;
};

class Vir {
 public:
  struct Impl;
  explicit Vir(std::unique_ptr<Impl> impl);
  ~Vir();
  // The module as MLIR text; with `debugInfo`, source locations too.
  std::string print(bool debugInfo = false) const;
  Impl& impl() const { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

// Lowers `program` (checked, from `file`) and runs the passes `options` ask
// for plus the target's legality check. Problems go to `sink` as coded
// diagnostics; the result is null when there were any.
std::unique_ptr<Vir> buildVir(const hir::Program& program, const base::SourceMap& sources, base::FileId file,
                              const VirOptions& options, diag::Sink& sink);

}  // namespace vx::dialect
