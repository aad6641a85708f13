// A .vxdma program in memory: declarations (parameters, buffers), labels and
// instructions in vectors, operands typed. Built by the assembler (Asm.h) or
// directly by a compiler back end, printed back by print().
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tpu/Isa.h"

namespace vx::tpu {

enum class Space : uint8_t { Hbm, Vmem, Smem };
enum class DType : uint8_t { F32, Bf16, I64 };
// What the simulator does with an HBM buffer: inputs and inouts are filled by
// vx_fill, outputs and inouts are checksummed, scratch is neither. VMEM and
// SMEM buffers are always Local (zeroed, never printed).
enum class Role : uint8_t { Input, Output, InOut, Scratch, Local };

const char* spaceName(Space s);  // "hbm", "vmem", "smem"
const char* dtypeName(DType t);  // "f32", "bf16", "i64"
const char* roleName(Role r);    // "input", ...; "" for Local
unsigned dtypeBytes(DType t);

// A dimension of a declared shape: a literal, or a parameter's value.
struct Dim {
  int64_t value = 0;   // used when param < 0
  int32_t param = -1;  // index into Program::params
  bool operator==(const Dim&) const = default;
};

struct Param {
  std::string name;
  std::optional<int64_t> defaultValue;
  bool operator==(const Param&) const = default;
};

struct Buffer {
  std::string name;
  Space space = Space::Vmem;
  DType dtype = DType::F32;
  std::vector<Dim> shape;
  Role role = Role::Local;
  bool operator==(const Buffer&) const = default;
};

// A position in the Vx source, 1-based; line 0 means "unknown".
struct Loc {
  uint32_t line = 0;
  uint32_t col = 0;
  bool known() const { return line != 0; }
  bool operator==(const Loc&) const = default;
};

inline constexpr uint8_t kNoReg = 0xff;

struct Operand {
  OperandKind kind = OperandKind::Imm;
  // Reg: the register. RegOrImm: the register, or kNoReg for an immediate.
  // Mem/Tile/Word: the base register, or kNoReg. Sem: the register that
  // numbers the semaphore (`sem[r3]`), or kNoReg for `semN`.
  uint8_t reg = kNoReg;
  // Mem/Tile/Word: the buffer. Sem, Label, Param: their index.
  int32_t index = -1;
  // Imm/RegOrImm: the value. Mem/Tile/Word: the byte offset. Dims: rows.
  int64_t imm = 0;
  int64_t cols = 0;  // Dims
  float fval = 0;    // Float
  bool operator==(const Operand& o) const;

  static Operand makeReg(uint8_t r);
  static Operand makeImm(int64_t v);    // an `i` operand
  static Operand makeXImm(int64_t v);   // an `x` operand holding a value
  static Operand makeXReg(uint8_t r);   // an `x` operand holding a register
  static Operand makeMem(OperandKind k, int32_t buffer, uint8_t reg, int64_t offset);
  static Operand makeSem(unsigned s);
  static Operand makeSemReg(uint8_t r);  // sem[rN]
  static Operand makeLabel(int32_t label);
  static Operand makeParam(int32_t param);
  static Operand makeDims(int64_t rows, int64_t cols);
  static Operand makeFloat(float f);
};

struct Instr {
  Op op = Op::Nop;
  uint8_t numOperands = 0;
  Operand operands[kMaxOperands];
  Loc loc;            // the Vx source position this instruction lowers
  uint32_t line = 0;  // its line in the .vxdma text; 0 when built in memory
  // Compares everything but `line`, so parse(print(p)) == p.
  bool operator==(const Instr& o) const;
};

struct Label {
  std::string name;
  uint32_t target = 0;  // instruction index
  bool operator==(const Label&) const = default;
};

// A `.dbg "TEXT" "TYPE"` line: what a `dbg.*` instruction prints before
// its value (`file:line: <expression>`) and, for a tile, the tensor's
// element type and shape as the source wrote them (`f32[128]`).
struct DbgText {
  std::string text;
  std::string type;
  bool operator==(const DbgText&) const = default;
};

struct Program {
  uint32_t version = kFormatVersion;
  std::string kernel;      // `.kernel NAME`, may be empty
  std::string sourceFile;  // `.source "FILE"`: the Vx file the locs refer to
  bool spmd = false;       // `.spmd`: every core runs the program (else core 0 alone)
  std::vector<Param> params;
  std::vector<Buffer> buffers;
  std::vector<Label> labels;
  std::vector<DbgText> dbgs;  // numbered in order: operand 0 of `dbg.*`
  std::vector<Instr> code;
  bool operator==(const Program&) const = default;

  // -1 when absent.
  int32_t findBuffer(std::string_view name) const;
  int32_t findParam(std::string_view name) const;
  int32_t findLabel(std::string_view name) const;
};

// Builds instructions for code that emits programs (the compiler, tests).
Instr makeInstr(Op op, std::initializer_list<Operand> operands, Loc loc = {});

}  // namespace vx::tpu
