// Declarations for the generated Stdlib.cpp (stdlib/ embedded at build time).
#pragma once

namespace vx::check {
struct EmbeddedText {
  const char* name;
  const char* text;
};
extern const EmbeddedText kStdlib[];
extern const unsigned kStdlibCount;
}  // namespace vx::check
