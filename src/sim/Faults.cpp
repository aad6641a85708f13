// Fault messages: what went wrong, the instruction (index and text), its
// place in the .vxdma file and in the Vx source, and the DMA involved.
#include "sim/Machine.h"
#include "tpu/Asm.h"

namespace vx::sim {

const char* faultKindName(FaultKind k) {
  switch (k) {
    case FaultKind::ReadDuringDmaWrite: return "read-during-dma-write";
    case FaultKind::WriteDuringDma: return "write-during-dma";
    case FaultKind::DmaOverlapsItself: return "dma-overlaps-itself";
    case FaultKind::Deadlock: return "deadlock";
    case FaultKind::HaltWithDmaInFlight: return "halt-with-dma-in-flight";
    case FaultKind::TooManyDmas: return "too-many-dmas";
    case FaultKind::OutOfBounds: return "out-of-bounds";
    case FaultKind::Misaligned: return "misaligned";
    case FaultKind::Arithmetic: return "arithmetic";
    case FaultKind::MatrixShape: return "matrix-shape";
    case FaultKind::InstructionLimit: return "instruction-limit";
    case FaultKind::CheckLimit: return "check-limit";
  }
  return "?";
}

std::string Machine::describeRange(uint32_t buf, int64_t lo, int64_t hi) const {
  return std::string(tpu::spaceName(mem(buf).space)) + " `" + prog_.buffers[buf].name + "` bytes [" +
         std::to_string(lo) + ", " + std::to_string(hi) + ")";
}

std::string Machine::describeSpan(const Span& s) const {
  if (s.rows == 1) return describeRange(s.buf, s.lo, s.hi());
  return std::string(tpu::spaceName(mem(s.buf).space)) + " `" + prog_.buffers[s.buf].name + "` " +
         std::to_string(s.rows) + " rows of " + std::to_string(s.rowBytes) + " bytes, " + std::to_string(s.stride) +
         " apart, in bytes [" + std::to_string(s.lo) + ", " + std::to_string(s.hi()) + ")";
}

std::string Machine::describeTag(int64_t tag, unsigned core) const {
  if (tag == kMany) return "other grid instances";
  std::string where = multicore() ? " on core " + std::to_string(core) : "";
  if (tag < 0) return "core " + std::to_string(core) + " (outside any grid instance)";
  return "grid instance " + std::to_string(tag) + where;
}

std::string Machine::describeInstr(uint32_t pc) const {
  const tpu::Instr& in = prog_.code[pc];
  std::string s = "instruction " + std::to_string(pc) + ": " + tpu::printInstr(prog_, in) + "\n    at " +
                  opt_.programName;
  if (in.line) s += ":" + std::to_string(in.line);
  if (in.loc.known()) {
    s += ", from Vx source " + (prog_.sourceFile.empty() ? std::string("<unknown file>") : prog_.sourceFile) + ":" +
         std::to_string(in.loc.line);
    if (in.loc.col) s += ":" + std::to_string(in.loc.col);
  } else {
    s += " (no Vx source location)";
  }
  return s;
}

std::string Machine::describeDma(const Inflight& f) const {
  return "DMA #" + std::to_string(f.id) + " (" + describeSpan(f.src) + " -> " + describeSpan(f.dst) +
         ", signals sem" + std::to_string(f.sem) +
         ") was started by " + describeInstr(f.instr);
}

void Machine::fault(FaultKind k, uint32_t pc, std::string what, int64_t dma) {
  Fault f;
  f.kind = k;
  f.instr = pc;
  f.core = c_->id;
  f.dma = dma;
  const std::string on = multicore() ? " on core " + std::to_string(c_->id) : "";
  f.message = "runtime fault (" + std::string(faultKindName(k)) + ")" + on + ": " + what + "\n  " + describeInstr(pc);
  for (const Inflight& in : c_->inflight)
    if (in.id == dma) f.message += "\n  " + describeDma(in);
  f.message += "\n  after " + std::to_string(c_->executed) + " instructions, at cycle " + std::to_string(now());
  throw FaultSignal{std::move(f)};
}

}  // namespace vx::sim
