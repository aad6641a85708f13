// The profile: stall cycles add up to the trace's stalls, per source line;
// copy time splits into queueing, transfer and latency; the hint names the
// bound the figures show.
#include "SimTestUtil.h"

using namespace simtest;
using vx::sim::EventKind;
using vx::sim::Options;
using vx::sim::Result;
using vx::sim::Status;

namespace {

Result runWith(const vx::tpu::Program& p, Options opt) {
  opt.trace = true;
  Result r = vx::sim::run(p, opt);
  REQUIRE(r.status == Status::Ok);
  return r;
}

uint64_t traceStalls(const Result& r) {
  uint64_t s = 0;
  for (const auto& e : r.trace)
    if (e.kind == EventKind::Stall) s += e.dur;
  return s;
}

}  // namespace

TEST_CASE("stalls in the profile are the trace's stalls, each at its dma.wait") {
  for (int depth : {1, 2, 3}) {
    vx::tpu::Program p = assembleOrFail(streamProgram(128, depth));
    Options opt;
    opt.args = {{"n", 6}};
    Result r = runWith(p, opt);
    uint64_t total = 0, waits = 0;
    for (size_t i = 0; i < p.code.size(); ++i) {
      total += r.profile.stallByInstr[i];
      waits += r.profile.waitsByInstr[i];
      if (r.profile.waitsByInstr[i]) CHECK(p.code[i].op == vx::tpu::Op::DmaWait);
    }
    INFO("depth " << depth);
    CHECK(total == traceStalls(r));
    CHECK(waits == r.profile.dmas);  // every copy is waited once
    CHECK(r.profile.latencyCycles == r.profile.dmas * opt.config.dmaLatency);
    uint64_t dmaTime = 0;
    for (const auto& e : r.trace)
      if (e.kind == EventKind::Dma) dmaTime += e.dur;
    // A DMA's event runs from its engine start to completion: its transfer,
    // its latency, and the part of its queueing spent waiting for the link.
    CHECK(dmaTime >= r.profile.transferCycles + r.profile.latencyCycles);
    CHECK(dmaTime <= r.profile.transferCycles + r.profile.latencyCycles + r.profile.queueCycles);
  }
}

TEST_CASE("a deeper ring waits less, and the profile says why the shallow one waits") {
  Options opt;
  opt.args = {{"n", 8}};
  vx::tpu::Program one = assembleOrFail(streamProgram(128, 1)), three = assembleOrFail(streamProgram(128, 3));
  Result a = runWith(one, opt), b = runWith(three, opt);
  uint64_t sa = traceStalls(a), sb = traceStalls(b);
  CHECK(sb < sa);
  std::string text = vx::sim::profileText(one, a);
  CHECK(contains(text, "waiting for copies: " + std::to_string(sa) + " of " + std::to_string(a.cycles) + " cycles"));
  CHECK(contains(text, "hint: latency-bound"));
  CHECK(contains(text, "per copy 0 cycles queued"));
}

TEST_CASE("without latency, copies back to back saturate HBM: bandwidth-bound") {
  Options opt;
  opt.args = {{"n", 8}};
  opt.config.dmaLatency = 0;
  opt.config.mxuLatency = 0;
  vx::tpu::Program p = assembleOrFail(streamProgram(128, 3));
  Result r = runWith(p, opt);
  std::string text = vx::sim::profileText(p, r);
  INFO(text);
  CHECK(contains(text, "hint: bandwidth-bound"));
}

TEST_CASE("a program whose copies are hidden is compute-bound") {
  // One copy, then a long run of matrix work on another buffer.
  std::string prog = ".vxdma 1\n.hbm x f32 [128, 128] input\n.hbm y f32 [128, 128] output\n.vmem v f32 [128, 128]\n"
                     ".vmem u f32 [128, 128]\n  dma.start x, v, 65536, sem0\n";
  for (int i = 0; i < 40; ++i) prog += "  mxu.matmul u, [128, 128]\n";
  prog += "  dma.wait sem0\n  mxu.pop v, [128, 128]\n  dma.start v, y, 65536, sem0\n  dma.wait sem0\n  halt\n";
  vx::tpu::Program p = assembleOrFail(prog);
  Result r = runWith(p, Options{});
  std::string text = vx::sim::profileText(p, r);
  INFO(text);
  CHECK(contains(text, "hint: compute-bound"));
  CHECK(contains(text, "instruction "));  // no .loc: stalls are named by instruction
}
