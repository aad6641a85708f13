#include "tpu/Program.h"

#include <cstring>

namespace vx::tpu {

const char* spaceName(Space s) {
  switch (s) {
    case Space::Hbm: return "hbm";
    case Space::Vmem: return "vmem";
    case Space::Smem: return "smem";
  }
  return "?";
}

const char* dtypeName(DType t) {
  switch (t) {
    case DType::F32: return "f32";
    case DType::Bf16: return "bf16";
    case DType::I64: return "i64";
  }
  return "?";
}

const char* roleName(Role r) {
  switch (r) {
    case Role::Input: return "input";
    case Role::Output: return "output";
    case Role::InOut: return "inout";
    case Role::Scratch: return "scratch";
    case Role::Local: return "";
  }
  return "?";
}

unsigned dtypeBytes(DType t) {
  switch (t) {
    case DType::F32: return 4;
    case DType::Bf16: return 2;
    case DType::I64: return 8;
  }
  return 1;
}

bool Operand::operator==(const Operand& o) const {
  // Floats compare by bits so that -0.0 and 0.0 differ and the round trip is exact.
  uint32_t a = 0, b = 0;
  std::memcpy(&a, &fval, 4);
  std::memcpy(&b, &o.fval, 4);
  return kind == o.kind && reg == o.reg && index == o.index && imm == o.imm && cols == o.cols &&
         a == b;
}

Operand Operand::makeReg(uint8_t r) {
  Operand o;
  o.kind = OperandKind::Reg;
  o.reg = r;
  return o;
}

Operand Operand::makeImm(int64_t v) {
  Operand o;
  o.kind = OperandKind::Imm;
  o.imm = v;
  return o;
}

Operand Operand::makeXImm(int64_t v) {
  Operand o;
  o.kind = OperandKind::RegOrImm;
  o.imm = v;
  return o;
}

Operand Operand::makeXReg(uint8_t r) {
  Operand o;
  o.kind = OperandKind::RegOrImm;
  o.reg = r;
  return o;
}

Operand Operand::makeMem(OperandKind k, int32_t buffer, uint8_t reg, int64_t offset) {
  Operand o;
  o.kind = k;
  o.index = buffer;
  o.reg = reg;
  o.imm = offset;
  return o;
}

Operand Operand::makeSem(unsigned s) {
  Operand o;
  o.kind = OperandKind::Sem;
  o.index = static_cast<int32_t>(s);
  return o;
}

Operand Operand::makeSemReg(uint8_t r) {
  Operand o;
  o.kind = OperandKind::Sem;
  o.index = 0;
  o.reg = r;
  return o;
}

Operand Operand::makeLabel(int32_t label) {
  Operand o;
  o.kind = OperandKind::Label;
  o.index = label;
  return o;
}

Operand Operand::makeParam(int32_t param) {
  Operand o;
  o.kind = OperandKind::Param;
  o.index = param;
  return o;
}

Operand Operand::makeDims(int64_t rows, int64_t cols) {
  Operand o;
  o.kind = OperandKind::Dims;
  o.imm = rows;
  o.cols = cols;
  return o;
}

Operand Operand::makeFloat(float f) {
  Operand o;
  o.kind = OperandKind::Float;
  o.fval = f;
  return o;
}

bool Instr::operator==(const Instr& o) const {
  if (op != o.op || numOperands != o.numOperands || !(loc == o.loc)) return false;
  for (unsigned i = 0; i < numOperands && i < kMaxOperands; ++i)
    if (!(operands[i] == o.operands[i])) return false;
  return true;
}

int32_t Program::findBuffer(std::string_view name) const {
  for (size_t i = 0; i < buffers.size(); ++i)
    if (buffers[i].name == name) return static_cast<int32_t>(i);
  return -1;
}

int32_t Program::findParam(std::string_view name) const {
  for (size_t i = 0; i < params.size(); ++i)
    if (params[i].name == name) return static_cast<int32_t>(i);
  return -1;
}

int32_t Program::findLabel(std::string_view name) const {
  for (size_t i = 0; i < labels.size(); ++i)
    if (labels[i].name == name) return static_cast<int32_t>(i);
  return -1;
}

Instr makeInstr(Op op, std::initializer_list<Operand> operands, Loc loc) {
  Instr in;
  in.op = op;
  in.loc = loc;
  for (const Operand& o : operands) {
    if (in.numOperands == kMaxOperands) break;
    in.operands[in.numOperands++] = o;
  }
  return in;
}

}  // namespace vx::tpu
