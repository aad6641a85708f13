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

namespace {

// n matmuls of [256, 128] f32 by the identity, `scalars` adds after each.
std::string matmulLoop(int n, int scalars) {
  std::string t = ".vxdma 1\n.vmem x f32 [256, 128]\n.vmem o f32 [256, 128]\n.hbm c f32 [256, 128] output\n"
                  "  li r1, 0\ntop:\n  mxu.matmul x, [256, 128]\n";
  for (int i = 0; i < scalars; ++i) t += "  add r2, r2, 1\n";
  t += "  add r1, r1, 1\n  blt r1, " + std::to_string(n) +
       ", top\n  mxu.pop o, [256, 128]\n  dma.start o, c, 131072, sem0\n  dma.wait sem0\n  halt\n";
  return t;
}

uint64_t run(const std::string& text, const Config& c) {
  Options opt;
  opt.config = c;
  Result r = runText(text, opt);
  REQUIRE(r.status == Status::Ok);
  return r.cycles;
}

}  // namespace

TEST_CASE("the scalar unit issues on while the matrix unit works: a loop's own instructions hide behind its matmuls") {
  Config overlap, serial;
  serial.unitOverlap = 0;
  const uint64_t matmul = (256 * overlap.mxuF32Passes + overlap.mxuCount - 1) / overlap.mxuCount + overlap.mxuLatency;
  const int n = 64, scalars = 100;  // 102 instructions a trip, under the matmul's 200 cycles
  REQUIRE(scalars + 2 < static_cast<int>(matmul));
  const double lean = double(run(matmulLoop(n, 0), overlap)), busy = double(run(matmulLoop(n, scalars), overlap));
  INFO("overlapped: " << lean << " and " << busy << " cycles");
  CHECK(busy < 1.02 * lean);
  CHECK(busy >= n * matmul);
  // Serialised, every trip costs its matmul and its instructions.
  const double serialBusy = double(run(matmulLoop(n, scalars), serial));
  CHECK(serialBusy >= n * (matmul + scalars));
  CHECK(serialBusy > 1.4 * busy);
}

TEST_CASE("a unit's queue: the core stalls only when it is full") {
  // 16 independent vector instructions of 130 cycles each, then a scalar
  // loop of about 1,000 instructions: with a deep queue the loop overlaps
  // the vector work; with none it waits for each to start.
  std::string t = ".vxdma 1\n.vmem x f32 [1024, 128]\n.hbm c f32 [4] output\n";
  for (int i = 0; i < 16; ++i) t += "  vec.zero x, [1024, 128]\n";
  t += "  li r1, 0\ntop:\n  add r1, r1, 1\n  blt r1, 500, top\n  halt\n";
  Config deep, none;
  deep.unitQueue = 16;
  none.unitQueue = 0;
  const double a = double(run(t, deep)), b = double(run(t, none));
  INFO("queue 16: " << a << ", queue 0: " << b);
  CHECK(a < 2200);   // max(vector 16 x 130, scalar 1,000)
  CHECK(b > 2900);   // the vector work's 15 x 130 before the loop, then the loop
}

TEST_CASE("the scoreboard: a copy out of a tile waits for the unit writing it, and copies the written values") {
  // vec.fill writes o (a long instruction); the dma.start that reads o must
  // wait for it, and carries the filled values.
  const std::string t = ".vxdma 1\n.vmem o f32 [1024, 128]\n.hbm c f32 [1024, 128] output\n"
                        "  vec.fill o, 2.5, [1024, 128]\n  dma.start o, c, 524288, sem0\n  dma.wait sem0\n  halt\n";
  Options opt;
  opt.trace = true;
  opt.keepOutputs = true;
  Result r = runText(t, opt);
  REQUIRE(r.status == Status::Ok);
  uint64_t vectorEnd = 0, dmaStart = 0, unitStall = 0;
  for (const auto& e : r.trace) {
    if (e.kind == vx::sim::EventKind::Vector) vectorEnd = e.start + e.dur;
    if (e.kind == vx::sim::EventKind::Dma) dmaStart = e.start;
    if (e.kind == vx::sim::EventKind::UnitStall) unitStall += e.dur;
  }
  CHECK(dmaStart >= vectorEnd);
  CHECK(unitStall > 0);
  CHECK(r.profile.unitStallCycles == unitStall);
  REQUIRE(r.outputs.size() == 1);
  CHECK(r.outputs[0].values.front() == 2.5f);
  CHECK(r.outputs[0].values.back() == 2.5f);
}

TEST_CASE("halt waits for the units: the run's cycles cover the last unit instruction") {
  const std::string t = ".vxdma 1\n.vmem o f32 [1024, 128]\n.hbm c f32 [4] output\n  vec.zero o, [1024, 128]\n  halt\n";
  Config c;
  const uint64_t cost = 1 + (1024 * 128) / (c.vpuSublanes * c.vpuLanes) + c.vpuLatency;
  CHECK(run(t, c) >= cost);
}

TEST_CASE("pipelined DMA engines: a deep ring of small copies hides the latency that holding the engines cannot") {
  // 64 KiB tiles (121 cycles of data, 500 of latency) through 4 engines:
  // held until complete, one copy per ~155 cycles at best; pipelined, the
  // HBM port's rate.
  Config pipelined, held;
  held.dmaPipelined = 0;
  pipelined.mxuF32Passes = held.mxuF32Passes = 1;  // copy-bound
  Figures f = expected(pipelined, 256, 128);
  const double p = double(cycles(128, 8, 256, pipelined)), h = double(cycles(128, 8, 256, held));
  INFO("pipelined " << p << ", held " << h << ", DMA " << f.dma);
  CHECK(p <= 1.1 * f.dma);
  CHECK(h >= 1.15 * f.dma);
}
