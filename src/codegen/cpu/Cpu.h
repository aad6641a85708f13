// The cpu target: VIR -> one self-contained C++17 translation unit plus a
// header with an `extern "C"` entry per function, over the runtime in
// include/vx/ (docs/cpu.md). No MLIR in this header.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dialect/Vir.h"

namespace vx::cpu {

// How an entry's parameter crosses the C ABI and how `vxc run` fills it.
struct Param {
  enum class Kind { Scalar, Tensor, Vec, Pinned };
  std::string name;
  Kind kind = Kind::Scalar;
  bool mut = false;             // `&mut`: an output, checksummed by `vxc run`
  std::string type;             // scalar: i32 u32 i64 u64 usize f32 f64 bool bf16;
                                // buffers: their element type (f32 f64 bf16)
  std::vector<int64_t> shape;   // buffers: the tensor's (a Vec's element's) shape; -1: a run-time extent
  // Tensors with run-time extents (grid.md §1): per dimension, the name of
  // the parameter holding it ("" where static).
  std::vector<std::string> extents;
  bool extent = false;          // a scalar: the hidden parameter of a run-time extent
  int64_t elements() const;     // static shapes only
};
// What `vxc run`'s harness takes where no `--arg` gives a value: a run-time
// extent's, and a Vec's length.
inline constexpr uint64_t kDefaultExtent = 128;
inline constexpr uint64_t kDefaultVecLength = 8;
// The C expression for a buffer parameter's element count (per tensor of a
// Vec): a number, or a product over its extents' parameters.
std::string countExpr(const Param& p);

// The C spelling of a Param's `type` at the boundary: a scalar parameter or
// result, and a buffer's element (target::cAbiScalar, cAbiElement).
std::string cScalar(const std::string& type);
std::string cElem(const std::string& type);
// The C identifier of a parameter: `p_` and its name, other characters `_`.
std::string cName(const Param& p);

struct Entry {
  std::string name;         // the Vx function
  std::string symbol;       // its C symbol: vx_<name>
  std::vector<Param> params;
  std::string result;       // scalar type or "" for void
  bool cAbi = true;         // false: tokens or buffers returned; no C entry
  std::string why;          // when !cAbi
};

struct CppUnit {
  std::string source;  // #includes "vx/runtime.h" and `headerName`
  std::string header;
  std::vector<Entry> entries;
  bool runtimeChecks = false;  // some function has run-time token checks (#[allow(unproved)])
};

// Which runtime a unit is written against: the cpu runtime (include/vx/),
// or the CUDA intrinsic layer (include/vx/cuda/) of b200 and h100, whose
// unit is a `.cu` with a kernel and a host launcher per entry (docs/b200.md).
enum class Flavor { Cpu, Cuda };

// Emits the unit for `vir`; `origin` is the source path named in comments.
// The C entries are named `symbolPrefix` + the function's name.
CppUnit emitCpp(const dialect::Vir& vir, const std::string& headerName, const std::string& origin,
                Flavor flavor = Flavor::Cpu, const std::string& symbolPrefix = "vx_");

// A main() for `entry` that #includes `unitSource` (so the accumulator of an
// entry without outputs is reachable): `EXE [--seed N] [--arg name=N]...
// [--repeat R]` fills inputs with vx_fill, runs, prints checksums and time.
// `flavor` names the runtime whose HostArena/HostInvocation it keeps.
std::string emitHarness(const Entry& entry, const std::string& unitSource, Flavor flavor = Flavor::Cpu);

}  // namespace vx::cpu
