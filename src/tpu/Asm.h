// Text <-> Program. assemble() never throws and never crashes on any input:
// problems come back as line-numbered errors. print() writes the canonical
// text, and assemble(print(p)).program == p for every valid p whose labels are
// listed in target order (the assembler numbers labels in definition order).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tpu/Program.h"

namespace vx::tpu {

struct AsmError {
  uint32_t line = 0;  // 1-based; 0 when the problem has no line (in-memory programs)
  uint32_t col = 0;   // 1-based byte column; 0 when unknown
  std::string message;
};

struct AsmResult {
  Program program;  // complete only when errors is empty
  std::vector<AsmError> errors;
  bool ok() const { return errors.empty(); }
};

// The assembler stops collecting after this many errors.
inline constexpr size_t kMaxAsmErrors = 50;

AsmResult assemble(std::string_view text);

// Checks a Program built in memory against everything the assembler enforces
// (operand kinds, indices in range, shapes, a final `halt` or `jmp`). The
// simulator runs nothing that fails this.
std::vector<AsmError> validate(const Program& p);

// `file:line:col: error: message` (line and column omitted when unknown).
std::string formatError(std::string_view file, const AsmError& e);

std::string print(const Program& p);
// One instruction as it appears in print(), without indentation or location.
std::string printInstr(const Program& p, const Instr& in);

}  // namespace vx::tpu
