// Shared state of the C++ emitter (Emit*.cpp): one Emitter per unit; names of
// SSA values are per function.
#pragma once

#include <algorithm>
#include <string>

#include "codegen/cpu/Cpu.h"
#include "dialect/VxDialect.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"

namespace vx::cpu {

struct Emitter {
  std::string out;
  int indent = 0;
  llvm::DenseMap<mlir::Value, std::string> names;
  // How many SSA values each C++ name stands for: a buffer's name is
  // released after its last use only when it stands for that value alone.
  llvm::StringMap<unsigned> bound;
  unsigned next = 0;
  // Run-time token checks (vx/checked.h): every copy of the unit is
  // registered when some function needs them; that function's own accesses
  // are checked against the copies pending.
  bool checkedTokens = false;
  bool checkAccesses = false;
  // The runtime the unit calls: vx::rt (include/vx/, cpu) or vx::cu (the
  // CUDA intrinsic layer, include/vx/cuda/, b200 and h100).
  Flavor flavor = Flavor::Cpu;
  std::string rt = "vx::rt";
  bool cuda() const { return flavor == Flavor::Cuda; }

  // Indented two spaces a level up to 32 levels: deeper (an `else if`
  // chain of a thousand arms nests a thousand deep) the indentation alone
  // grew the unit quadratically (300 KB of source, 118 MB of C++).
  static constexpr int kMaxIndent = 32;
  void line(const std::string& text) {
    out.append(static_cast<size_t>(std::min(indent, kMaxIndent)) * 2, ' ');
    out += text;
    out += '\n';
  }
  // The C++ name of an SSA value already defined.
  std::string name(mlir::Value v) const;
  // Gives `v` a new name (v12) and returns it.
  std::string fresh(mlir::Value v);
  void alias(mlir::Value v, const std::string& n) {
    names[v] = n;
    ++bound[n];
  }
};

// The runtime namespace cppType spells buffer and token types in, for the
// unit being emitted on this thread (vx::rt unless a CUDA unit is).
const std::string& runtimeNamespace();
// C++ spelling of a VIR type (`vx::rt::Buf<float>`, `uint64_t`).
std::string cppType(mlir::Type t);
// C++ type of a tensor element (`float`, `vx::rt::bf16`).
std::string elemType(mlir::Type t);
// `"file.vx:4:22"` (a C string literal) for an op's location.
std::string locLiteral(mlir::Location loc);
// `text` as a C string literal.
std::string cLiteral(const std::string& text);
// Number of elements of a tensor/pinned type.
int64_t numElements(mlir::Type t);

// Emits one non-structured op (arith, vx, func.call) as statements.
void emitSimpleOp(Emitter& e, mlir::Operation* op);
// Emits the ops of `block` except its terminator, recursing into regions.
void emitBlock(Emitter& e, mlir::Block& block);

[[noreturn]] void unsupportedOp(mlir::Operation* op);

}  // namespace vx::cpu
