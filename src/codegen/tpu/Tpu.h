// The tpu target: VIR -> a `.vxdma` program for vxsim (docs/tpu/lowering.md).
// No MLIR in this header, and no simulator: backends emit programs; the
// driver runs them and reports (src/driver/TpuReport.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/Source.h"
#include "diag/Sink.h"
#include "dialect/Vir.h"
#include "tpu/Program.h"

namespace vx::codegen::tpu {

// One parameter of the entry function and how `vxc run --arg` reaches it.
struct KernelParam {
  enum class Kind { Scalar, Vec, Tensor, Pinned };
  std::string name;   // as in the Vx source
  Kind kind = Kind::Scalar;
  std::string type;   // scalars: bool i32 u32 i64 u64 usize f32 ...; buffers: element type
  bool mut = false;   // `&mut` buffer: an output
  std::string param;  // the `.param` holding a Vec's length or a scalar; empty if none
  bool extent = false;               // a scalar: a run-time extent (grid.md §1), at least 1 here
  std::vector<std::string> extents;  // a tensor: per dimension, the extent holding it ("" where static)
};

struct Kernel {
  ::vx::tpu::Program program;
  std::vector<KernelParam> params;
  // Program::buffers index -> the name `vxc run` prints for that output
  // (the accumulator is `acc` whatever its buffer is called).
  std::vector<std::pair<int32_t, std::string>> outputs;
  // The accumulator output is printed only when r1 is nonzero at halt (a
  // matmul_acc ran), as the cpu target prints it only when the unit was used.
  int32_t accBuffer = -1;
  std::string result;  // scalar result type ("" for none); its value is r0 at halt
  // SMEM words whose out-of-bounds read is a trap (Program::buffers index ->
  // what trapped: "index out of bounds", "integer overflow").
  std::vector<std::pair<int32_t, std::string>> traps;
};

struct LowerOptions {
  std::string entry;       // the function to lower; empty: the only one that can be an entry
  std::string sourceName;  // `.source` (the Vx file the `.loc` lines refer to)
  uint64_t vmemBytes = 128ull << 20;  // capacity (vxsim's default vmem_bytes)
  uint64_t smemBytes = 1ull << 20;
};

// Lowers one entry of `vir` (built for target tpu). Constructs the target
// cannot lower are E0206 (and a footprint over VMEM E6007) in `sink`, and the
// result is empty; an unusable entry name is `usageError`, also empty.
std::optional<Kernel> lowerKernel(const dialect::Vir& vir, base::FileId file, const LowerOptions& options,
                                  diag::Sink& sink, std::string& usageError);

// `--arg NAME=VALUE` of `vxc run` -> `.param` values; an error message when
// one is wrong (unknown name, bad value, a tensor).
std::string kernelArgs(const Kernel& k, const std::vector<std::string>& kvs,
                       std::vector<std::pair<std::string, int64_t>>& out);

}  // namespace vx::codegen::tpu
