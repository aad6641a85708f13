// Small wording helpers for diagnostics.
#pragma once

#include <string>

#include "check/Sema.h"

namespace vx::check {

// "1 argument", "2 arguments".
inline std::string countOf(size_t n, const std::string& noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}
// "1 index", "2 indices".
inline std::string countOf(size_t n, const std::string& one, const std::string& many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}
// "1 was", "2 were".
inline std::string plural(uint32_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

bool memSpaceByName(const std::string& n, hir::MemSpace& out);
bool topologyByName(const std::string& n, hir::Topology& out);
// Resolves a two-segment constant path (`Memory::VMEM`), reporting E0100.
hir::TypeId lowerConstPath(Sema& s, const ast::Path& p, base::Span at);

}  // namespace vx::check
