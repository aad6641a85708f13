// The .vxdma instruction set: opcodes (from Opcodes.def), the units that
// execute them, operand kinds and the architectural constants.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace vx::tpu {

// Version of the .vxdma format this code reads and writes (`.vxdma 1`).
inline constexpr uint32_t kFormatVersion = 1;
inline constexpr unsigned kNumRegs = 32;        // r0..r31, 64-bit signed
inline constexpr unsigned kNumSems = 32;        // sem0..sem31
inline constexpr unsigned kMaxOperands = 7;   // dma.strided
inline constexpr unsigned kMaxRank = 8;         // dimensions of a buffer shape
inline constexpr int64_t kMaxTileDim = 1 << 20; // rows or cols of a tile operand

enum class Op : uint8_t {
#define OP(Name, Mnemonic, Unit, Kinds, Cost, Doc) Name,
#include "tpu/Opcodes.def"
#undef OP
  Count_
};
inline constexpr unsigned kNumOps = static_cast<unsigned>(Op::Count_);

enum class Unit : uint8_t { Scalar, Dma, Matrix, Vector };
const char* unitName(Unit u);

// One letter of an opcode's operand-kind string (see Opcodes.def).
enum class OperandKind : uint8_t {
  Reg,       // r
  RegOrImm,  // x
  Imm,       // i
  Float,     // f
  Mem,       // m
  Tile,      // t
  Word,      // q
  Sem,       // s
  Label,     // l
  Param,     // p
  Dims,      // d
};
std::optional<OperandKind> operandKindFromLetter(char c);
// What a person should write, for error messages: "a register like `r3`".
const char* operandKindDescription(OperandKind k);

struct OpInfo {
  const char* mnemonic;
  Unit unit;
  const char* kinds;  // one letter per operand
  const char* cost;
  const char* doc;
};
const OpInfo& info(Op op);
unsigned operandCount(Op op);
OperandKind operandKind(Op op, unsigned i);
std::optional<Op> opFromMnemonic(std::string_view mnemonic);

// The opcode table as Markdown, embedded verbatim in docs/tpu/isa.md.
std::string opcodeTableMarkdown();

}  // namespace vx::tpu
