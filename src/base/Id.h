// Typed 32-bit IDs into vectors, with a named sentinel (carbon-lang's ids.h).
#pragma once

#include <cstdint>

namespace vx::base {

template <typename Tag>
struct Id {
  uint32_t index = UINT32_MAX;
  static constexpr Id none() { return Id{}; }
  bool valid() const { return index != UINT32_MAX; }
  friend bool operator==(Id a, Id b) { return a.index == b.index; }
  friend bool operator!=(Id a, Id b) { return a.index != b.index; }
};

// A (begin, count) range in a shared vector of children.
struct List {
  uint32_t begin = 0;
  uint32_t count = 0;
};

}  // namespace vx::base
