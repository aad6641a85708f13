// The timing model pipelines: asynchronous copies overlap the matrix unit
// (about max(copy, compute)), blocking copies do not (about their sum).
// Ratios with generous bounds, never absolute cycle counts.
#include <cmath>

#include "SimTestUtil.h"

using namespace simtest;
using vx::sim::Config;
using vx::sim::Options;
using vx::sim::Result;
using vx::sim::Status;

namespace {

struct Figures {
  double dma, compute, latency;  // per-run totals, cycles
};

// The model's own figures for n tiles of [rows, 128] f32 (see docs/tpu/sim.md).
Figures expected(const Config& c, int n, int rows) {
  const double bytes = rows * 128.0 * 4;
  const double dma = n * std::ceil(bytes / c.hbmBytesPerCycle());
  const double compute = n * (std::ceil(rows * double(c.mxuF32Passes) / double(c.mxuCount)) + double(c.mxuLatency));
  return {dma, compute, n * double(c.dmaLatency)};
}

uint64_t cycles(int rows, int depth, int n, const Config& c = {}) {
  Options opt;
  opt.args = {{"n", n}};
  opt.config = c;
  Result r = runText(streamProgram(rows, depth), opt);
  REQUIRE(r.status == Status::Ok);
  return r.cycles;
}

}  // namespace

TEST_CASE("a ring of in-flight copies runs at about max(copy, compute)") {
  const int n = 32, rows = 1024;
  Config c;
  Figures f = expected(c, n, rows);
  const double bound = std::max(f.dma, f.compute);
  const double async = static_cast<double>(cycles(rows, 3, n, c));
  INFO("async " << async << " bound " << bound);
  CHECK(async >= bound);
  CHECK(async <= 1.25 * bound);
}

TEST_CASE("blocking copies run at about copy + latency + compute") {
  const int n = 32, rows = 1024;
  Config c;
  Figures f = expected(c, n, rows);
  const double sum = f.dma + f.latency + f.compute;
  const double sync = static_cast<double>(cycles(rows, 1, n, c));
  INFO("sync " << sync << " sum " << sum);
  CHECK(sync >= sum);
  CHECK(sync <= 1.1 * sum);
  CHECK(sync > 1.6 * static_cast<double>(cycles(rows, 3, n, c)));
}

TEST_CASE("compute-bound streams hide the copies entirely") {
  Config c;
  c.mxuF32Passes = 12;  // make the matrix unit the bottleneck
  Figures f = expected(c, 32, 512);
  const double async = static_cast<double>(cycles(512, 3, 32, c));
  CHECK(async <= 1.15 * f.compute);
  CHECK(async >= f.compute);
}

TEST_CASE("more DMA latency costs the blocking program per tile, the pipelined one once") {
  Config lo, hi;
  hi.dmaLatency = lo.dmaLatency + 2000;
  const double syncDelta = double(cycles(512, 1, 16, hi)) - double(cycles(512, 1, 16, lo));
  const double asyncDelta = double(cycles(512, 4, 16, hi)) - double(cycles(512, 4, 16, lo));
  CHECK(syncDelta >= 16 * 2000 * 0.95);
  CHECK(asyncDelta < 0.5 * syncDelta);
}

TEST_CASE("HBM bandwidth is a parameter: halving it doubles a copy-bound run's time") {
  Config fast, slow;
  slow.hbmGbps = fast.hbmGbps / 2;
  fast.dmaLatency = slow.dmaLatency = 0;
  const double ratio = double(cycles(2048, 3, 16, slow)) / double(cycles(2048, 3, 16, fast));
  CHECK(ratio > 1.8);
  CHECK(ratio < 2.1);
}

TEST_CASE("busy fractions: the matrix unit's busy cycles are its instructions' costs") {
  Options opt;
  opt.args = {{"n", 4}};
  Result r = runText(streamProgram(256, 2), opt);
  REQUIRE(r.status == Status::Ok);
  Config c;
  // latch (128 + latency), 4 matmuls, one pop of [256, 128].
  const uint64_t matmul = (256 * c.mxuF32Passes + c.mxuCount - 1) / c.mxuCount + c.mxuLatency;
  const uint64_t pop = (256 * 128 + 1023) / 1024 + c.mxuLatency;
  REQUIRE(r.units.size() == 3 + c.dmaEngines);
  CHECK(r.units[2].name == "matrix");
  CHECK(r.units[2].busyCycles == 128 + c.mxuLatency + 4 * matmul + pop);
  CHECK(r.units[0].busyCycles == r.instructions * c.scalarCycles);
  for (const auto& u : r.units) CHECK(u.busyCycles <= r.cycles);
}
