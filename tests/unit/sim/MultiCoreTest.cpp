// Several TensorCores: a `.spmd` program runs on every core (others on core
// 0 alone), each core with its own registers, VMEM, DMA engines and matrix
// unit; cores share HBM and its bandwidth; grid instances (and cores) that
// touch the same HBM bytes, one writing, race whatever the timing.
#include <nlohmann/json.hpp>

#include <cmath>
#include <set>

#include "SimTestUtil.h"

using namespace simtest;
using vx::sim::Config;
using vx::sim::FaultKind;
using vx::sim::Options;
using vx::sim::Result;
using vx::sim::Status;

namespace {

const std::string kDecls =
    ".hbm a f32 [4, 256] input\n.hbm c f32 [4, 256] output\n.vmem x f32 [256]\n.vmem y f32 [1024, 1024]\n";

// Core k copies row k of `a` into row k of `c`.
const std::string kRowPerCore =
    "  core.id r1\n  mul r2, r1, 1024\n  dma.start a[r2], x, 1024, sem0\n  dma.wait sem0\n"
    "  dma.start x, c[r2], 1024, sem1\n  dma.wait sem1\n  core.count r0\n  halt\n";

Options cores(uint64_t n) {
  Options opt;
  opt.config.cores = n;
  opt.keepOutputs = true;
  opt.seed = 9;
  return opt;
}

// c with the first `rows` rows of `a`.
std::vector<float> firstRows(int rows) {
  std::vector<float> a(4 * 256), c(4 * 256, 0.0f);
  vx_fill(9, 0, a.data(), a.size());
  std::copy(a.begin(), a.begin() + rows * 256, c.begin());
  return c;
}

Result faultOf(const std::string& text, Options opt) {
  Result r = runText(text, opt);
  REQUIRE(r.status == Status::Fault);
  CHECK(r.exitCode() == 3);
  return r;
}

}  // namespace

TEST_CASE("every core runs a .spmd program with its own core.id; others run on core 0") {
  for (uint64_t n : {1, 2, 4}) {
    INFO(n << " cores");
    Result r = runText(".vxdma 1\n.spmd\n" + kDecls + kRowPerCore, cores(n));
    REQUIRE(r.status == Status::Ok);
    CHECK(r.outputs[0].values == firstRows(static_cast<int>(n)));
    CHECK(r.cores == n);
    CHECK(r.registers[0] == static_cast<int64_t>(n));  // core 0's core.count
    CHECK(r.units.size() == n * (3 + Config{}.dmaEngines));
  }
  Result solo = runText(".vxdma 1\n" + kDecls + kRowPerCore, cores(4));
  REQUIRE(solo.status == Status::Ok);
  CHECK(solo.outputs[0].values == firstRows(1));
  CHECK(solo.registers[0] == 1);
  CHECK(solo.units[0].name == "scalar");  // a one-core run reports as before
}

TEST_CASE("two cores writing the same HBM bytes race") {
  Result r = faultOf(".vxdma 1\n.spmd\n.source \"k.vx\"\n" + kDecls +
                         "  dma.start a, x, 1024, sem0\n  dma.wait sem0\n.loc 7:3\n  dma.start x, c, 1024, sem1\n"
                         "  dma.wait sem1\n  halt\n",
                     cores(2));
  CHECK(r.fault->kind == FaultKind::WriteDuringDma);
  CHECK(r.fault->core == 1);
  const std::string& m = r.fault->message;
  CHECK(contains(m, "runtime fault (write-during-dma) on core 1: core 1 (outside any grid instance) writes hbm `c` "
                    "bytes [0, 1024), which core 0 (outside any grid instance) writes"));
  CHECK(contains(m, "wrote them at instruction 2: dma.start x, c, 1024, sem1"));
  CHECK(contains(m, "k.vx:7:3"));
}

TEST_CASE("a core reading HBM bytes another core writes races, whichever comes first") {
  // Core 0 writes row 0 of c; core 1 reads it. Zeroing `y` delays one of
  // them: the copy into `x` waits for the vector unit's copy of `y` into it.
  const std::string delay = "  vec.zero y, [1024, 1024]\n  vec.copy x, y, [1, 256]\n";
  for (bool writerLate : {false, true}) {
    INFO("the writer is " << (writerLate ? "late" : "early"));
    std::string text = ".vxdma 1\n.spmd\n" + kDecls + "  core.id r1\n  bnz r1, reader\n" + (writerLate ? delay : "") +
                       "  dma.start a, x, 1024, sem0\n  dma.wait sem0\n  dma.start x, c, 1024, sem0\n"
                       "  dma.wait sem0\n  halt\nreader:\n" +
                       (writerLate ? "" : delay) + "  dma.start c, x, 1024, sem0\n  dma.wait sem0\n  halt\n";
    Result r = faultOf(text, cores(2));
    CHECK(r.fault->kind == (writerLate ? FaultKind::WriteDuringDma : FaultKind::ReadDuringDmaWrite));
    CHECK(contains(r.fault->message, writerLate ? "which core 1 (outside any grid instance) read"
                                                : "which core 0 (outside any grid instance) writes"));
  }
}

TEST_CASE("grid instances that touch the same bytes race on one core as on several") {
  // Instances inst = core.id, core.id + core.count, ... < 4; instance i
  // writes row (i % rows) of c, so rows = 2 makes 0 and 2, 1 and 3 collide.
  auto grid = [](int rows) {
    return ".vxdma 1\n.spmd\n" + kDecls +
           "  core.id r1\n  core.count r2\n  dma.start a, x, 1024, sem0\n  dma.wait sem0\ntop:\n  grid.instance r1\n"
           "  rem r3, r1, " +
           std::to_string(rows) +
           "\n  mul r3, r3, 1024\n  dma.start x, c[r3], 1024, sem1\n  dma.wait sem1\n  add r1, r1, r2\n"
           "  blt r1, 4, top\n  halt\n";
  };
  for (uint64_t n : {1, 2, 4}) {
    INFO(n << " cores");
    CHECK(runText(grid(4), cores(n)).status == Status::Ok);
    Result r = faultOf(grid(2), cores(n));
    CHECK(r.fault->kind == FaultKind::WriteDuringDma);
    CHECK(contains(r.fault->message, "grid instance 2"));
    CHECK(contains(r.fault->message, "which grid instance 0"));
  }
  // All instances read the input row `a[0]`: reads never race.
  CHECK(runText(grid(4), cores(3)).status == Status::Ok);
}

TEST_CASE("one instance number claimed on two cores races as two instances do") {
  // A grid loop that forgets `core.id`: every core runs instance 0 and
  // writes the same row of c (each from its own row of a).
  const std::string text = ".vxdma 1\n.spmd\n" + kDecls +
                           "  core.id r1\n  mul r2, r1, 1024\n  dma.start a[r2], x, 1024, sem0\n  dma.wait sem0\n"
                           "  grid.instance 0\n  dma.start x, c, 1024, sem1\n  dma.wait sem1\n  halt\n";
  for (uint64_t n : {2, 4}) {
    INFO(n << " cores");
    Result r = faultOf(text, cores(n));
    CHECK(r.fault->kind == FaultKind::WriteDuringDma);
    CHECK(contains(r.fault->message, "which grid instance 0 on core 0 writes"));
  }
  CHECK(runText(text, cores(1)).status == Status::Ok);
}

TEST_CASE("each core has its own matrix unit, and mxu.reset empties it") {
  // Weights 2 * identity, X = a[0:4, 0:128] summed twice, then reset: the
  // identity again and an empty accumulator, so the pop is X.
  const std::string text =
      ".vxdma 1\n.spmd\n.hbm a f32 [4, 256] input\n.hbm c f32 [2, 4, 128] output\n.vmem x f32 [4, 128]\n"
      ".vmem w f32 [128, 128]\n.vmem o f32 [4, 128]\n"
      "  dma.strided a, x, 4, 512, 1024, 512, sem0\n  dma.wait sem0\n  mxu.matmul x, [4, 128]\n"
      "  mxu.reset\n  mxu.matmul x, [4, 128]\n  mxu.pop o, [4, 128]\n  core.id r1\n  mul r1, r1, 2048\n"
      "  dma.start o, c[r1], 2048, sem1\n  dma.wait sem1\n  halt\n";
  Result r = runText(text, cores(2));
  REQUIRE(r.status == Status::Ok);
  std::vector<float> a(4 * 256), want;
  vx_fill(9, 0, a.data(), a.size());
  for (int core = 0; core < 2; ++core)
    for (int i = 0; i < 4; ++i) want.insert(want.end(), a.begin() + i * 256, a.begin() + i * 256 + 128);
  CHECK(r.outputs[0].values == want);
}

TEST_CASE("instances spread over two cores finish in about half the cycles") {
  // 8 instances of a 1024-row matmul (776 cycles each).
  const std::string text = ".vxdma 1\n.spmd\n.param n = 8\n.vmem x f32 [1024, 128]\n"
                           "  core.id r1\n  core.count r2\n  ld.param r3, n\n  bge r1, r3, done\ntop:\n"
                           "  mxu.matmul x, [1024, 128]\n  add r1, r1, r2\n  blt r1, r3, top\ndone:\n  halt\n";
  Result one = runText(text, cores(1)), two = runText(text, cores(2));
  REQUIRE(one.status == Status::Ok);
  REQUIRE(two.status == Status::Ok);
  const double ratio = static_cast<double>(one.cycles) / static_cast<double>(two.cycles);
  INFO("1 core " << one.cycles << ", 2 cores " << two.cycles);
  CHECK(ratio > 1.98);
  CHECK(ratio <= 2.0);
  // Uneven work: the run lasts until the last core halts.
  Options opt = cores(2);
  opt.args = {{"n", 3}};
  Result uneven = runText(text, opt);
  REQUIRE(uneven.status == Status::Ok);
  REQUIRE(uneven.coreCycles.size() == 2);
  CHECK(uneven.coreCycles[0] > uneven.coreCycles[1] + 700);
  CHECK(uneven.cycles == uneven.coreCycles[0]);
}

TEST_CASE("cores share the chip's HBM bandwidth") {
  // Each core copies its own 16 tiles of 64 KiB, one at a time.
  const std::string text =
      ".vxdma 1\n.spmd\n.hbm a f32 [8, 16, 16384] input\n.vmem x f32 [16384]\n"
      "  core.id r1\n  mul r1, r1, 1048576\n  li r2, 0\ntop:\n  add r3, r1, r2\n  dma.start a[r3], x, 65536, sem0\n"
      "  dma.wait sem0\n  add r2, r2, 65536\n  blt r2, 1048576, top\n  halt\n";
  auto run = [&](uint64_t n, double chipGbps) {
    Options opt;
    opt.config.cores = n;
    opt.config.dmaLatency = 0;
    opt.config.hbmChipGbps = chipGbps;
    Result r = runText(text, opt);
    REQUIRE(r.status == Status::Ok);
    return static_cast<double>(r.cycles);
  };
  const double alone = run(1, 1638);
  // The default chip has a core's bandwidth for each of two cores...
  CHECK(run(2, 1638) <= 1.02 * alone);
  // ...a chip with one core's bandwidth makes each core's copies half as fast...
  const double shared = run(2, 819);
  CHECK(shared >= 1.9 * alone);
  CHECK(shared <= 2.1 * alone);
  // ...and four cores share two cores' worth.
  CHECK(run(4, 1638) >= 1.9 * alone);
}

TEST_CASE("max_instructions counts every core's instructions") {
  Options opt = cores(2);
  opt.config.maxInstructions = 1000;
  Result r = faultOf(".vxdma 1\n.spmd\ntop:\n  jmp top\n", opt);
  CHECK(r.fault->kind == FaultKind::InstructionLimit);
  CHECK(r.instructions == 1000);
}

TEST_CASE("the trace has a process per core and a track per unit of each") {
  Options opt = cores(2);
  opt.trace = true;
  vx::tpu::Program p = assembleOrFail(".vxdma 1\n.spmd\n.kernel k\n" + kDecls + kRowPerCore);
  Result r = vx::sim::run(p, opt);
  REQUIRE(r.status == Status::Ok);
  nlohmann::json j = nlohmann::json::parse(vx::sim::chromeTraceJson(p, r));
  std::map<int, std::string> processes;
  std::map<int, std::pair<int, std::string>> threads;  // tid -> (pid, name)
  std::set<std::pair<int, int>> slices;                // (pid, tid) of events
  for (const auto& e : j.at("traceEvents")) {
    if (e.at("ph") == "M" && e.at("name") == "process_name") processes[e.at("pid")] = e.at("args").at("name");
    if (e.at("ph") == "M" && e.at("name") == "thread_name") threads[e.at("tid")] = {e.at("pid"), e.at("args").at("name")};
    if (e.at("ph") == "X") slices.insert({e.at("pid").get<int>(), e.at("tid").get<int>()});
  }
  CHECK(processes[1] == "vxsim TensorCore 0 k");
  CHECK(processes[2] == "vxsim TensorCore 1 k");
  const size_t perCore = 3 + Config{}.dmaEngines;
  REQUIRE(threads.size() == 2 * perCore);
  CHECK(threads[1] == std::make_pair(1, std::string("core0.scalar")));
  CHECK(threads[static_cast<int>(perCore) + 3] == std::make_pair(2, std::string("core1.matrix")));
  for (const auto& [pid, tid] : slices) CHECK(threads[tid].first == pid);
  bool both = false;
  for (const auto& [pid, tid] : slices) both = both || pid == 2;
  CHECK(both);
  const std::string profile = vx::sim::profileText(p, r);
  CHECK(contains(profile, "core-cycles"));
  CHECK(contains(profile, "cores: each halted at cycle: core0 "));
  CHECK(contains(vx::sim::timelineSvg(p, r), "core1.dma0"));
}
