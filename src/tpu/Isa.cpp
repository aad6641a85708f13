#include "tpu/Isa.h"

#include <cstring>

namespace vx::tpu {

namespace {

constexpr OpInfo kInfos[] = {
#define OP(Name, Mnemonic, UnitName, Kinds, Cost, Doc) {Mnemonic, Unit::UnitName, Kinds, Cost, Doc},
#include "tpu/Opcodes.def"
#undef OP
};
static_assert(sizeof(kInfos) / sizeof(kInfos[0]) == kNumOps);

// The syntax placeholder of each operand kind, as the ISA reference shows it.
const char* placeholder(OperandKind k) {
  switch (k) {
    case OperandKind::Reg: return "rN";
    case OperandKind::RegOrImm: return "rN or IMM";
    case OperandKind::Imm: return "IMM";
    case OperandKind::Float: return "FLOAT";
    case OperandKind::Mem: return "MEM";
    case OperandKind::Tile: return "TILE";
    case OperandKind::Word: return "WORD";
    case OperandKind::Sem: return "semN or sem[rN]";
    case OperandKind::Label: return "LABEL";
    case OperandKind::Param: return "PARAM";
    case OperandKind::Dims: return "[R, C]";
  }
  return "?";
}

}  // namespace

const char* unitName(Unit u) {
  switch (u) {
    case Unit::Scalar: return "scalar";
    case Unit::Dma: return "dma";
    case Unit::Matrix: return "matrix";
    case Unit::Vector: return "vector";
  }
  return "?";
}

std::optional<OperandKind> operandKindFromLetter(char c) {
  switch (c) {
    case 'r': return OperandKind::Reg;
    case 'x': return OperandKind::RegOrImm;
    case 'i': return OperandKind::Imm;
    case 'f': return OperandKind::Float;
    case 'm': return OperandKind::Mem;
    case 't': return OperandKind::Tile;
    case 'q': return OperandKind::Word;
    case 's': return OperandKind::Sem;
    case 'l': return OperandKind::Label;
    case 'p': return OperandKind::Param;
    case 'd': return OperandKind::Dims;
    default: return std::nullopt;
  }
}

const char* operandKindDescription(OperandKind k) {
  switch (k) {
    case OperandKind::Reg: return "a register like `r3`";
    case OperandKind::RegOrImm: return "a register like `r3` or an integer like `64`";
    case OperandKind::Imm: return "an integer like `64` or `0x40`";
    case OperandKind::Float: return "a finite number like `0.5`";
    case OperandKind::Mem: return "a memory reference like `buf`, `buf[r1]` or `buf[r1 + 64]`";
    case OperandKind::Tile: return "a VMEM tile reference like `buf` or `buf[r1 + 64]`";
    case OperandKind::Word: return "an SMEM word reference like `vars[8]`";
    case OperandKind::Sem: return "a semaphore like `sem0`, or `sem[r3]` for the one numbered by r3";
    case OperandKind::Label: return "a label name";
    case OperandKind::Param: return "a parameter name declared with `.param`";
    case OperandKind::Dims: return "tile dimensions like `[128, 128]`";
  }
  return "an operand";
}

const OpInfo& info(Op op) { return kInfos[static_cast<unsigned>(op)]; }

unsigned operandCount(Op op) { return static_cast<unsigned>(std::strlen(info(op).kinds)); }

OperandKind operandKind(Op op, unsigned i) {
  // The table's letters are validated by a unit test, so this cannot fail.
  return *operandKindFromLetter(info(op).kinds[i]);
}

std::optional<Op> opFromMnemonic(std::string_view mnemonic) {
  for (unsigned i = 0; i < kNumOps; ++i)
    if (mnemonic == kInfos[i].mnemonic) return static_cast<Op>(i);
  return std::nullopt;
}

std::string opcodeTableMarkdown() {
  std::string out = "| opcode | operands | unit | cycles | semantics |\n|---|---|---|---|---|\n";
  for (unsigned i = 0; i < kNumOps; ++i) {
    const OpInfo& oi = kInfos[i];
    out += "| `";
    out += oi.mnemonic;
    out += "` | ";
    const unsigned n = operandCount(static_cast<Op>(i));
    for (unsigned k = 0; k < n; ++k) {
      if (k) out += ", ";
      out += "`";
      out += placeholder(operandKind(static_cast<Op>(i), k));
      out += "`";
    }
    if (n == 0) out += "—";
    out += " | ";
    out += unitName(oi.unit);
    out += " | ";
    out += oi.cost;
    out += " | ";
    // GitHub Markdown splits cells at `|` unless escaped, even in code spans.
    for (const char* p = oi.doc; *p; ++p) {
      if (*p == '|') out += '\\';
      out += *p;
    }
    out += " |\n";
  }
  return out;
}

}  // namespace vx::tpu
