// Event labels shared by the JSON trace and the SVG timeline (internal).
#pragma once

#include <string>
#include <string_view>

#include "sim/Sim.h"

namespace vx::sim {

std::string jsonEscape(std::string_view s);
std::string eventName(const tpu::Program& p, const Result& r, const TraceEvent& e);
std::string eventDetail(const tpu::Program& p, const Result& r, const TraceEvent& e);
const char* eventCategory(EventKind k);

}  // namespace vx::sim
