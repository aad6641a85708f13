#include "driver/TpuReport.h"

#include <cinttypes>
#include <cstdio>
#include <sstream>

namespace vx::driver {

std::string runReport(const codegen::tpu::Kernel& k, const sim::Result& r) {
  std::string s;
  char line[160];
  bool accUsed = r.registers.size() > 1 && r.registers[1] != 0;
  for (const auto& [index, name] : k.outputs) {
    if (index == k.accBuffer && !accUsed) continue;
    const std::string& buffer = k.program.buffers[static_cast<size_t>(index)].name;
    for (const sim::Output& o : r.outputs)
      if (o.name == buffer) {
        std::snprintf(line, sizeof line, "checksum %s = 0x%016" PRIx64 "\n", name.c_str(), o.checksum);
        s += line;
      }
  }
  if (!k.result.empty()) {
    int64_t v = r.registers.empty() ? 0 : r.registers[0];
    const std::string& t = k.result;
    if (t == "bool") std::snprintf(line, sizeof line, "result = %s\n", v ? "true" : "false");
    else if (t == "u32") std::snprintf(line, sizeof line, "result = %u\n", static_cast<uint32_t>(v));
    else if (t == "u64" || t == "usize") std::snprintf(line, sizeof line, "result = %llu\n", static_cast<unsigned long long>(v));
    else std::snprintf(line, sizeof line, "result = %lld\n", static_cast<long long>(v));
    s += line;
  }
  std::istringstream totals(sim::report(r));
  for (std::string l; std::getline(totals, l);)
    if (l.rfind("checksum ", 0) != 0) s += l + "\n";
  return s;
}

std::string trapMessage(const codegen::tpu::Kernel& k, const sim::Result& r) {
  if (!r.fault || r.fault->instr >= k.program.code.size()) return {};
  const ::vx::tpu::Instr& in = k.program.code[r.fault->instr];
  std::string at = " at " + k.program.sourceFile + ":" + std::to_string(in.loc.line) + ":" + std::to_string(in.loc.col);
  // Division by zero and i64::MIN / -1 fault in the scalar unit itself.
  if (r.fault->kind == sim::FaultKind::Arithmetic) {
    const std::string& m = r.fault->message;
    size_t from = m.find("): "), to = m.find('\n');
    std::string what = from == std::string::npos ? std::string("arithmetic") : m.substr(from + 3, to - from - 3);
    // Worded as the other targets word it (include/vx/scalar.h).
    if (what == "i64::MIN / -1 overflows") what = "integer overflow in `/`";
    if (what == "i64::MIN % -1 overflows") what = "integer overflow in `%`";
    return "runtime trap: " + what + at;
  }
  if (in.op != ::vx::tpu::Op::LdSmem) return {};
  for (const auto& [buffer, what] : k.traps)
    if (in.operands[1].index == buffer) return "runtime trap: " + what + at;
  return {};
}

}  // namespace vx::driver
