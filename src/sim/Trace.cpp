// Chrome/Perfetto trace-event JSON: one process per TensorCore, one thread
// per unit (scalar, vector, matrix, each DMA engine), complete ("X") events.
// Timestamps are microseconds at clock_ghz; args carry the exact cycles.
#include <algorithm>
#include <cstdio>

#include "sim/Sim.h"
#include "sim/TraceText.h"
#include "tpu/Asm.h"

namespace vx::sim {

std::string jsonEscape(std::string_view s) {
  std::string out;
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    if (c == '"') out += "\\\"";
    else if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else if (c < 0x20 || c >= 0x7f) {
      // Non-ASCII bytes are escaped one by one: the JSON stays valid even
      // when a file name is not UTF-8.
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else out += ch;
  }
  return out;
}

std::string eventName(const tpu::Program& p, const Result& r, const TraceEvent& e) {
  switch (e.kind) {
    case EventKind::Scalar: return "scalar";
    case EventKind::Stall: return "wait sem" + std::to_string(e.detail) + " (stall)";
    case EventKind::UnitStall: return std::string("wait for the ") + (e.detail == 2 ? "matrix" : "vector") + " unit (stall)";
    case EventKind::Vector:
    case EventKind::Matrix:
      return e.instr < p.code.size() ? tpu::info(p.code[e.instr].op).mnemonic : "?";
    case EventKind::Dma: {
      std::string s = "dma #" + std::to_string(e.dma);
      if (e.dma >= 0 && static_cast<size_t>(e.dma) < r.dmas.size()) {
        const DmaRecord& d = r.dmas[static_cast<size_t>(e.dma)];
        s += " " + p.buffers[static_cast<size_t>(d.src)].name + " -> " + p.buffers[static_cast<size_t>(d.dst)].name;
      }
      return s;
    }
  }
  return "?";
}

std::string eventDetail(const tpu::Program& p, const Result& r, const TraceEvent& e) {
  std::string s;
  if (e.instr < p.code.size()) {
    const tpu::Instr& in = p.code[e.instr];
    s = "instruction " + std::to_string(e.instr) + ": " + tpu::printInstr(p, in);
    if (in.loc.known())
      s += " (" + (p.sourceFile.empty() ? std::string("<source>") : p.sourceFile) + ":" +
           std::to_string(in.loc.line) + ":" + std::to_string(in.loc.col) + ")";
  }
  if (e.kind == EventKind::Dma && e.dma >= 0 && static_cast<size_t>(e.dma) < r.dmas.size()) {
    const DmaRecord& d = r.dmas[static_cast<size_t>(e.dma)];
    s += "; " + std::to_string(d.bytes) + " bytes" + (d.rows > 1 ? " in " + std::to_string(d.rows) + " rows" : "") +
         ", " + p.buffers[static_cast<size_t>(d.src)].name + "+" +
         std::to_string(d.srcOff) + " -> " + p.buffers[static_cast<size_t>(d.dst)].name + "+" +
         std::to_string(d.dstOff) + ", sem" + std::to_string(d.sem);
  }
  s += "; cycles " + std::to_string(e.start) + " + " + std::to_string(e.dur);
  return s;
}

const char* eventCategory(EventKind k) {
  switch (k) {
    case EventKind::Scalar: return "scalar";
    case EventKind::Stall:
    case EventKind::UnitStall: return "stall";
    case EventKind::Vector: return "vector";
    case EventKind::Matrix: return "matrix";
    case EventKind::Dma: return "dma";
  }
  return "?";
}

std::string chromeTraceJson(const tpu::Program& p, const Result& r) {
  const double usPerCycle = 1.0 / (r.clockGhz * 1000.0);
  std::string out = "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"cycles\":" + std::to_string(r.cycles) +
                    ",\"instructions\":" + std::to_string(r.instructions) +
                    ",\"truncated\":" + (r.traceTruncated ? "true" : "false") + "},\"traceEvents\":[\n";
  // One process per core: Perfetto groups each core's units under it.
  for (unsigned c = 0; c < std::max(r.cores, 1u); ++c) {
    out += std::string(c ? ",\n" : "") + "{\"ph\":\"M\",\"pid\":" + std::to_string(c + 1) +
           ",\"name\":\"process_name\",\"args\":{\"name\":\"vxsim TensorCore" +
           (r.cores > 1 ? " " + std::to_string(c) : std::string()) +
           (p.kernel.empty() ? std::string() : " " + jsonEscape(p.kernel)) + "\"}}";
    out += ",\n{\"ph\":\"M\",\"pid\":" + std::to_string(c + 1) +
           ",\"name\":\"process_sort_index\",\"args\":{\"sort_index\":" + std::to_string(c + 1) + "}}";
  }
  for (size_t t = 0; t < r.units.size(); ++t) {
    const std::string tid = std::to_string(t + 1), pid = std::to_string(r.units[t].core + 1);
    out += ",\n{\"ph\":\"M\",\"pid\":" + pid + ",\"tid\":" + tid +
           ",\"name\":\"thread_name\",\"args\":{\"name\":\"" + jsonEscape(r.units[t].name) + "\"}}";
    out += ",\n{\"ph\":\"M\",\"pid\":" + pid + ",\"tid\":" + tid +
           ",\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":" + tid + "}}";
  }
  char num[96];
  for (const TraceEvent& e : r.trace) {
    std::snprintf(num, sizeof num, "\"ts\":%.6f,\"dur\":%.6f", static_cast<double>(e.start) * usPerCycle,
                  static_cast<double>(e.dur) * usPerCycle);
    const unsigned core = e.track < r.units.size() ? r.units[e.track].core : 0;
    out += ",\n{\"ph\":\"X\",\"pid\":" + std::to_string(core + 1) + ",\"tid\":" + std::to_string(e.track + 1) +
           ",\"name\":\"" +
           jsonEscape(eventName(p, r, e)) + "\",\"cat\":\"" + eventCategory(e.kind) + "\"," + num +
           ",\"args\":{\"start_cycle\":" + std::to_string(e.start) + ",\"cycles\":" + std::to_string(e.dur) +
           ",\"detail\":\"" + jsonEscape(eventDetail(p, r, e)) + "\"}}";
  }
  out += "\n]}\n";
  return out;
}

}  // namespace vx::sim
