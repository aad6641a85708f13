// E6007: the on-chip bytes live at once exceed the target's capacity
// (Footprint.cpp finds it; this words it).
#include "check/own/Report.h"

namespace vx::check::own {

diag::Diagnostic renderFootprint(const ReportContext& a, const Decided& d) {
  const Finding::Footprint& fp = d.f.footprint;
  constexpr uint64_t kMax = UINT64_MAX;
  std::string space = std::string("Memory::") + hir::memSpaceName(fp.space);
  std::string usedText = fp.used == kMax ? "more than 2^64" : std::to_string(fp.used);
  diag::Diagnostic out = fp.recursion ? diag::FootprintUnbounded(a.fn.name, space, target::info(a.target).name,
                                                                   std::to_string(fp.capacity))
                                      : diag::FootprintTooLarge(a.fn.name, usedText, space, std::to_string(fp.capacity),
                                                                target::info(a.target).name);
  out.primary(d.f.at, fp.recursion ? "this call recurses with on-chip buffers live"
                                   : "this brings the total to " + usedText + " bytes");
  for (const auto& [span, bytes] : fp.live) out.secondary(span, std::to_string(bytes) + " bytes live here");
  if (fp.recursion)
    out.note("each level of the recursion keeps its own buffers: the footprint grows with the depth, which the "
             "checker cannot bound");
  if (fp.callee && !fp.recursion) out.note("the callee's own buffers take " + std::to_string(fp.callee) + " bytes of it");
  if (fp.space == hir::MemSpace::TMEM && fp.used != kMax)
    out.note("in tensor-memory columns (512 bytes each, one 32-bit cell in each of 128 lanes): " +
             std::to_string(fp.used / 512) + " of the " + std::to_string(fp.capacity / 512));
  target::MemoryInfo mem = target::memory(a.target, fp.space);
  out.note(std::string("`") + space + "` on target `" + target::info(a.target).name + "`: " + mem.source);
  out.help(fp.recursion ? "free the buffers (end their scope) before the recursive call, or write it as a loop"
                        : "use smaller tiles or fewer ring slots, or free buffers (end their scope) before allocating "
                          "more");
  return out;
}

}  // namespace vx::check::own
