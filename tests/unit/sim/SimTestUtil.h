// Helpers for the simulator's tests: assemble-or-fail, run text, and a C++
// reference for the stream_out programs of tests/tpu/StreamProgram.h.
#pragma once

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "sim/Sim.h"
#include "tpu/Asm.h"
#include "vx/data.h"
#include "../../tpu/StreamProgram.h"

namespace simtest {

using vxtest::streamProgram;

inline vx::tpu::Program assembleOrFail(const std::string& text) {
  vx::tpu::AsmResult r = vx::tpu::assemble(text);
  for (const auto& e : r.errors) FAIL_CHECK(vx::tpu::formatError("test.vxdma", e) << "\n" << text);
  REQUIRE(r.ok());
  return r.program;
}

inline vx::sim::Result runText(const std::string& text, vx::sim::Options opt = {}) {
  return vx::sim::run(assembleOrFail(text), opt);
}

inline bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// out = sum_i tiles[i] @ w, from the same fill as the simulator.
inline uint64_t streamReference(uint64_t seed, int n, int rows) {
  const size_t tileElems = static_cast<size_t>(rows) * 128;
  std::vector<float> tiles(static_cast<size_t>(n) * tileElems), w(128 * 128), out(tileElems, 0.0f);
  vx_fill(seed, 0, tiles.data(), tiles.size());
  vx_fill(seed, 1, w.data(), w.size());
  for (int t = 0; t < n; ++t)
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < 128; ++j) {
        float acc = 0;
        for (int k = 0; k < 128; ++k) acc += tiles[t * tileElems + i * 128 + k] * w[k * 128 + j];
        out[i * 128 + j] += acc;
      }
  return vx_checksum(out.data(), out.size());
}

}  // namespace simtest
