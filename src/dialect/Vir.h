// VIR for the driver, without MLIR headers: lower checked HIR to the `vx`
// dialect, run the passes, print. Backends that walk the IR include
// VirImpl.h instead (docs/dialect.md).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/Source.h"
#include "diag/Sink.h"
#include "hir/Hir.h"

namespace vx::dialect {

// What each op's location holds.
//   Full: a FusedLoc of a FileLineColLoc and an `array<i32: begin, end>` of
//     byte offsets (what `vxc build` prints and the backends cite);
//   SpanOnly: one FileLineColLoc in the file `kSpanLocFile` whose line and
//     column are the begin and end offsets: one uniqued attribute per op
//     instead of three (a check that never prints the module);
//   None: UnknownLoc everywhere, nothing uniqued (a legality check that
//     lowers again with locations only when it has something to report:
//     uniquing a location per op was 40% of the check's legality thread).
enum class Locations { Full, SpanOnly, None };

struct VirOptions {
  std::string target = "cpu";
  bool syncBaseline = false;  // run --sync-baseline after lowering
  Locations locations = Locations::Full;
  // Run MLIR's verifier on the lowered module (a lowering bug surfaces as
  // an internal error). A legality check whose module nothing else reads
  // leaves it out: the build that follows verifies what it builds.
  bool verify = true;
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

// `vxc run --compare=TARGET` without `--tolerance`: the tolerance derived
// from the documented error bounds of the operations of `entry` that two
// targets do not compute bit for bit (CompareBound.cpp, docs/compute.md
// "Precision"), relative to the largest magnitude of an output. `args`
// gives the entry's scalar arguments and extents by name (loop trip counts
// are evaluated from them); `known` is false when a trip count is not.
struct ComparePair {
  bool gpu = false;      // one side runs on b200/h100 (tf32 products)
  bool realGpu = false;  // one side runs on a GPU itself, not the interpreter
};
struct CompareBound {
  bool known = true;
  double rel = 0;
  std::vector<std::string> terms;  // each bound added, for the report
  std::string why;                 // when not known
};
CompareBound compareBound(const Vir& vir, const std::string& entry, const std::map<std::string, int64_t>& args,
                          const ComparePair& pair);

}  // namespace vx::dialect
