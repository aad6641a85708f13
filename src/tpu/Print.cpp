// The canonical text of a Program: declarations first, then code with
// labels on their own lines and `.loc` wherever the location changes.
#include <charconv>

#include "tpu/Asm.h"

namespace vx::tpu {

namespace {

std::string reg(uint8_t r) { return "r" + std::to_string(r); }

std::string floatText(float f) {
  // Shortest text that reads back as the same float.
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, f);
  return std::string(buf, res.ptr);
}

std::string operandText(const Program& p, const Operand& o) {
  switch (o.kind) {
    case OperandKind::Reg: return reg(o.reg);
    case OperandKind::RegOrImm: return o.reg != kNoReg ? reg(o.reg) : std::to_string(o.imm);
    case OperandKind::Imm: return std::to_string(o.imm);
    case OperandKind::Float: return floatText(o.fval);
    case OperandKind::Mem:
    case OperandKind::Tile:
    case OperandKind::Word: {
      std::string s = (o.index >= 0 && static_cast<size_t>(o.index) < p.buffers.size())
                          ? p.buffers[static_cast<size_t>(o.index)].name
                          : "<buffer " + std::to_string(o.index) + ">";
      if (o.reg == kNoReg) {
        if (o.imm != 0) s += "[" + std::to_string(o.imm) + "]";
      } else if (o.imm == 0) {
        s += "[" + reg(o.reg) + "]";
      } else if (o.imm > 0) {
        s += "[" + reg(o.reg) + " + " + std::to_string(o.imm) + "]";
      } else {
        // Printing -imm as unsigned keeps i64::MIN's magnitude (which the
        // assembler then rejects, as it cannot be negated).
        s += "[" + reg(o.reg) + " - " + std::to_string(0 - static_cast<uint64_t>(o.imm)) + "]";
      }
      return s;
    }
    case OperandKind::Sem: return o.reg != kNoReg ? "sem[" + reg(o.reg) + "]" : "sem" + std::to_string(o.index);
    case OperandKind::Label:
      return (o.index >= 0 && static_cast<size_t>(o.index) < p.labels.size())
                 ? p.labels[static_cast<size_t>(o.index)].name
                 : "<label " + std::to_string(o.index) + ">";
    case OperandKind::Param:
      return (o.index >= 0 && static_cast<size_t>(o.index) < p.params.size())
                 ? p.params[static_cast<size_t>(o.index)].name
                 : "<param " + std::to_string(o.index) + ">";
    case OperandKind::Dims: return "[" + std::to_string(o.imm) + ", " + std::to_string(o.cols) + "]";
  }
  return "?";
}

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::string printInstr(const Program& p, const Instr& in) {
  if (static_cast<unsigned>(in.op) >= kNumOps) return "<invalid opcode>";
  std::string s = info(in.op).mnemonic;
  for (unsigned i = 0; i < in.numOperands && i < kMaxOperands; ++i) {
    s += i ? ", " : " ";
    s += operandText(p, in.operands[i]);
  }
  return s;
}

std::string print(const Program& p) {
  std::string out = ".vxdma " + std::to_string(p.version) + "\n";
  if (!p.kernel.empty()) out += ".kernel " + p.kernel + "\n";
  if (!p.sourceFile.empty()) out += ".source " + quoted(p.sourceFile) + "\n";
  if (p.spmd) out += ".spmd\n";
  for (const Param& prm : p.params) {
    out += ".param " + prm.name;
    if (prm.defaultValue) out += " = " + std::to_string(*prm.defaultValue);
    out += "\n";
  }
  for (const DbgText& d : p.dbgs) out += ".dbg " + quoted(d.text) + " " + quoted(d.type) + "\n";
  for (const Buffer& b : p.buffers) {
    out += std::string(".") + spaceName(b.space) + " " + b.name + " " + dtypeName(b.dtype) + " [";
    for (size_t i = 0; i < b.shape.size(); ++i) {
      if (i) out += ", ";
      const Dim& d = b.shape[i];
      out += (d.param >= 0 && static_cast<size_t>(d.param) < p.params.size())
                 ? p.params[static_cast<size_t>(d.param)].name
                 : std::to_string(d.value);
    }
    out += "]";
    if (b.role != Role::Local) out += std::string(" ") + roleName(b.role);
    out += "\n";
  }
  out += "\n";
  // Labels per target, in index order (the order the assembler assigns).
  std::vector<std::vector<size_t>> at(p.code.size() + 1);
  for (size_t i = 0; i < p.labels.size(); ++i)
    at[std::min<size_t>(p.labels[i].target, p.code.size())].push_back(i);
  Loc loc;
  for (size_t i = 0; i <= p.code.size(); ++i) {
    for (size_t l : at[i]) out += p.labels[l].name + ":\n";
    if (i == p.code.size()) break;
    const Instr& in = p.code[i];
    if (!(in.loc == loc)) {
      out += ".loc " + std::to_string(in.loc.line) + ":" + std::to_string(in.loc.col) + "\n";
      loc = in.loc;
    }
    out += "  " + printInstr(p, in) + "\n";
  }
  return out;
}

}  // namespace vx::tpu
