// What the runtime's tests (tests/run/*Test.cpp) share: their input data,
// and a loop over the vector widths this CPU runs.
#pragma once

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "vx/data.h"
#include "vx/gemm.h"

// n floats of the data every target fills inputs with (vx/data.h), stream `index`.
inline std::vector<float> filled(uint32_t index, size_t n) {
  std::vector<float> v(n);
  vx_fill(42, index, v.data(), n);
  return v;
}

/* Calls f(level) for every Isa this CPU runs (gemm::detectIsa), the level
 * captured for the assertions f makes. */
template <typename F>
void atEveryWidth(F f) {
  using vx::rt::gemm::Isa;
  for (Isa level : {Isa::Generic, Isa::Avx2, Isa::Avx512}) {
    if (static_cast<int>(level) > static_cast<int>(vx::rt::gemm::detectIsa())) continue;
    CAPTURE(vx::rt::gemm::isaName(level));
    f(level);
  }
}
