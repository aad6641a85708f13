// Test data shared by the runtime's tests (tests/run/*Test.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "vx/data.h"

// n floats of the data every target fills inputs with (vx/data.h), stream `index`.
inline std::vector<float> filled(uint32_t index, size_t n) {
  std::vector<float> v(n);
  vx_fill(42, index, v.data(), n);
  return v;
}
