// Structural checks on a Program, whoever built it. The assembler enforces
// most of these while parsing (with better columns); this is the gate in
// front of the simulator for programs built in memory.
#include <cmath>
#include <set>

#include "tpu/Asm.h"
#include "tpu/AsmLex.h"

namespace vx::tpu {

namespace {

bool isName(std::string_view s) {
  if (s.empty() || !asmlex::isIdentStart(s[0])) return false;
  for (char c : s)
    if (!asmlex::isIdentChar(c)) return false;
  return true;
}

class Validator {
 public:
  explicit Validator(const Program& p) : p_(p) {}
  std::vector<AsmError> run();

 private:
  void declarations();
  void instr(size_t idx, const Instr& in);
  void operand(size_t idx, const Instr& in, unsigned i);
  void err(uint32_t line, std::string msg) { errors_.push_back({line, line ? 1u : 0u, std::move(msg)}); }
  void instrErr(size_t idx, const Instr& in, const std::string& msg) {
    err(in.line, "instruction " + std::to_string(idx) + " (`" + info(in.op).mnemonic + "`): " + msg);
  }

  const Program& p_;
  std::vector<AsmError> errors_;
};

std::vector<AsmError> Validator::run() {
  if (p_.version != kFormatVersion)
    err(0, "unsupported .vxdma version " + std::to_string(p_.version));
  declarations();
  if (p_.code.empty()) {
    err(0, "the program has no instructions (it must end with `halt`)");
    return errors_;
  }
  for (size_t i = 0; i < p_.code.size() && errors_.size() < kMaxAsmErrors; ++i) instr(i, p_.code[i]);
  const Instr& last = p_.code.back();
  if (last.op != Op::Halt && last.op != Op::Jmp)
    err(last.line, "the last instruction must be `halt` or `jmp`, so that execution cannot run off the end");
  return errors_;
}

void Validator::declarations() {
  if (!p_.kernel.empty() && !isName(p_.kernel)) err(0, "kernel name `" + asmlex::quoteToken(p_.kernel) + "` is not an identifier");
  for (char c : p_.sourceFile)
    if (static_cast<unsigned char>(c) < 0x20) {
      err(0, "the source file name contains a control character");
      break;
    }
  for (const DbgText& d : p_.dbgs)
    for (char c : d.text + d.type)
      if (static_cast<unsigned char>(c) < 0x20) {
        err(0, "a `.dbg` text contains a control character");
        break;
      }
  std::set<std::string> names;
  for (const Param& prm : p_.params) {
    if (!isName(prm.name) || asmlex::isReservedName(prm.name))
      err(0, "parameter name `" + asmlex::quoteToken(prm.name) + "` is not a usable identifier");
    if (!names.insert(prm.name).second) err(0, "`" + prm.name + "` is declared twice");
  }
  for (const Buffer& b : p_.buffers) {
    if (!isName(b.name) || asmlex::isReservedName(b.name))
      err(0, "buffer name `" + asmlex::quoteToken(b.name) + "` is not a usable identifier");
    if (!names.insert(b.name).second) err(0, "`" + b.name + "` is declared twice");
    if (b.shape.empty() || b.shape.size() > kMaxRank)
      err(0, "buffer `" + b.name + "` must have 1 to " + std::to_string(kMaxRank) + " dimensions");
    for (const Dim& d : b.shape) {
      if (d.param >= 0 ? static_cast<size_t>(d.param) >= p_.params.size() : d.value < 1)
        err(0, "buffer `" + b.name + "` has an invalid dimension");
    }
    if ((b.space == Space::Hbm) == (b.role == Role::Local))
      err(0, "buffer `" + b.name + "`: HBM buffers have a role (input, output, inout, scratch); others have none");
    if (b.dtype == DType::I64 && b.space != Space::Smem) err(0, "buffer `" + b.name + "`: i64 buffers live in SMEM");
  }
  std::set<std::string> labels;
  for (const Label& l : p_.labels) {
    if (!isName(l.name) || asmlex::isReservedName(l.name))
      err(0, "label name `" + asmlex::quoteToken(l.name) + "` is not a usable identifier");
    if (!labels.insert(l.name).second) err(0, "label `" + l.name + "` is defined twice");
    if (l.target >= p_.code.size()) err(0, "label `" + l.name + "` is not followed by an instruction");
  }
}

void Validator::instr(size_t idx, const Instr& in) {
  if (static_cast<unsigned>(in.op) >= kNumOps) {
    err(in.line, "instruction " + std::to_string(idx) + " has an invalid opcode");
    return;
  }
  if (in.numOperands != operandCount(in.op)) {
    instrErr(idx, in, "has " + std::to_string(in.numOperands) + " operands, expected " +
                          std::to_string(operandCount(in.op)));
    return;
  }
  for (unsigned i = 0; i < in.numOperands; ++i) operand(idx, in, i);
  if (in.op == Op::DbgInt || in.op == Op::DbgUint || in.op == Op::DbgBool || in.op == Op::DbgFloat ||
      in.op == Op::DbgTile) {
    int64_t t = in.operands[0].imm;
    if (t < 0 || static_cast<size_t>(t) >= p_.dbgs.size())
      instrErr(idx, in, "operand 1: no `.dbg` text " + std::to_string(t) + " (the program declares " +
                            std::to_string(p_.dbgs.size()) + ")");
  }
}

void Validator::operand(size_t idx, const Instr& in, unsigned i) {
  const OperandKind want = operandKind(in.op, i);
  const Operand& o = in.operands[i];
  const std::string which = "operand " + std::to_string(i + 1);
  if (o.kind != want) {
    instrErr(idx, in, which + " should be " + operandKindDescription(want));
    return;
  }
  switch (want) {
    case OperandKind::Reg:
      if (o.reg >= kNumRegs) instrErr(idx, in, which + ": no such register");
      break;
    case OperandKind::RegOrImm:
      if (o.reg != kNoReg && o.reg >= kNumRegs) instrErr(idx, in, which + ": no such register");
      break;
    case OperandKind::Imm:
      break;
    case OperandKind::Float:  // any float, infinities and NaN included (IEEE arithmetic)
      break;
    case OperandKind::Mem:
    case OperandKind::Tile:
    case OperandKind::Word: {
      if (o.index < 0 || static_cast<size_t>(o.index) >= p_.buffers.size()) {
        instrErr(idx, in, which + ": no such buffer");
        break;
      }
      if (o.reg != kNoReg && o.reg >= kNumRegs) instrErr(idx, in, which + ": no such register");
      const Buffer& b = p_.buffers[static_cast<size_t>(o.index)];
      if (want == OperandKind::Tile && (b.space != Space::Vmem || b.dtype == DType::I64))
        instrErr(idx, in, which + ": `" + b.name + "` is not a VMEM buffer of f32 or bf16");
      if (want == OperandKind::Word && (b.space != Space::Smem || b.dtype != DType::I64))
        instrErr(idx, in, which + ": `" + b.name + "` is not an SMEM buffer of i64");
      break;
    }
    case OperandKind::Sem:
      if (o.reg != kNoReg ? (o.reg >= kNumRegs || o.index != 0) : (o.index < 0 || o.index >= static_cast<int32_t>(kNumSems)))
        instrErr(idx, in, which + ": no such semaphore");
      break;
    case OperandKind::Label:
      if (o.index < 0 || static_cast<size_t>(o.index) >= p_.labels.size()) instrErr(idx, in, which + ": no such label");
      break;
    case OperandKind::Param:
      if (o.index < 0 || static_cast<size_t>(o.index) >= p_.params.size()) instrErr(idx, in, which + ": no such parameter");
      break;
    case OperandKind::Dims:
      if (o.imm < 1 || o.imm > kMaxTileDim || o.cols < 1 || o.cols > kMaxTileDim)
        instrErr(idx, in, which + ": tile dimensions must be in 1..." + std::to_string(kMaxTileDim));
      break;
  }
}

}  // namespace

std::vector<AsmError> validate(const Program& p) {
  try {
    return Validator(p).run();
  } catch (const std::exception& e) {
    return {{0, 0, std::string("validation ran out of resources: ") + e.what()}};
  }
}

}  // namespace vx::tpu
