// vxsim benchmark: interpreter speed (simulated instructions and cycles per
// wall second) on generated scalar-heavy programs, and the pipelining figure
// (async stream vs the roofline max(copy, compute), blocking stream vs
// copy + latency + compute). bench/sim.sh builds and runs it.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>

#include "../tests/tpu/StreamProgram.h"
#include "sim/Sim.h"
#include "tpu/Asm.h"

namespace {

vx::tpu::Program assembleOrDie(const std::string& text) {
  vx::tpu::AsmResult r = vx::tpu::assemble(text);
  if (!r.ok()) {
    for (const auto& e : r.errors) std::fprintf(stderr, "%s\n", vx::tpu::formatError("bench", e).c_str());
    std::exit(1);
  }
  return r.program;
}

vx::sim::Result runOrDie(const vx::tpu::Program& p, const vx::sim::Options& o) {
  vx::sim::Result r = vx::sim::run(p, o);
  if (r.status != vx::sim::Status::Ok) {
    std::fprintf(stderr, "%s", vx::sim::report(r).c_str());
    std::exit(1);
  }
  return r;
}

// A loop of dependent integer work (address arithmetic, compares, min/max),
// ten instructions per iteration, `iterations` times; with `smem` one store
// and one load to SMEM per iteration as well.
std::string scalarProgram(bool smem) {
  std::string s = ".vxdma 1\n.kernel scalar_loop\n.param n\n.smem v i64 [64]\n  ld.param r1, n\n  li r2, 0\n  li r3, 7\n"
                  "loop:\n  mul r4, r2, 65536\n  add r3, r3, r4\n  xor r3, r3, r2\n  shr r5, r3, 3\n"
                  "  and r5, r5, 0x1f8\n  min r6, r5, 448\n  max r6, r6, 0\n";
  if (smem) s += "  st.smem v[r6], r3\n  ld.smem r7, v[r6]\n";
  s += "  slt r8, r3, 0\n  add r2, r2, 1\n  blt r2, r1, loop\n  halt\n";
  return s;
}

// 365.0M, 5.9k: rates span six orders of magnitude between the rows.
std::string si(double v) {
  char buf[32];
  if (v >= 1e6) std::snprintf(buf, sizeof buf, "%.1fM", v / 1e6);
  else if (v >= 1e3) std::snprintf(buf, sizeof buf, "%.1fk", v / 1e3);
  else std::snprintf(buf, sizeof buf, "%.0f", v);
  return buf;
}

double seconds(std::chrono::steady_clock::duration d) { return std::chrono::duration<double>(d).count(); }

void speedRow(const char* name, const std::string& text, int64_t iterations) {
  vx::tpu::Program p = assembleOrDie(text);
  vx::sim::Options o;
  o.args = {{"n", iterations}};
  o.config.maxInstructions = uint64_t{1} << 40;
  double best = 1e30;
  vx::sim::Result r;
  for (int rep = 0; rep < 3; ++rep) {
    auto t0 = std::chrono::steady_clock::now();
    r = runOrDie(p, o);
    best = std::min(best, seconds(std::chrono::steady_clock::now() - t0));
  }
  std::printf("%-22s %12llu %10.1f %15s %15s\n", name, static_cast<unsigned long long>(r.instructions), best * 1e3,
              si(static_cast<double>(r.instructions) / best).c_str(), si(static_cast<double>(r.cycles) / best).c_str());
}

void pipelining(const char* label, const vx::sim::Config& c, int n, int rows) {
  vx::sim::Options o;
  o.config = c;
  o.args = {{"n", n}};
  const double bytes = rows * 128.0 * 4;
  const double copy = n * std::ceil(bytes / c.hbmBytesPerCycle());
  const double compute = n * (std::ceil(rows * double(c.mxuF32Passes) / double(c.mxuCount)) + double(c.mxuLatency));
  const double latency = n * double(c.dmaLatency);
  const double async = double(runOrDie(assembleOrDie(vxtest::streamProgram(rows, 3)), o).cycles);
  const double sync = double(runOrDie(assembleOrDie(vxtest::streamProgram(rows, 1)), o).cycles);
  const double roof = std::max(copy, compute), sum = copy + latency + compute;
  std::printf("%s: %d tiles of [%d, 128] f32; per tile: copy %.0f, compute %.0f, dma_latency %llu cycles\n", label, n,
              rows, copy / n, compute / n, static_cast<unsigned long long>(c.dmaLatency));
  std::printf("  async (3-slot ring)  %10.0f cycles  roofline max(copy, compute) %10.0f  ratio %.3f\n", async, roof,
              async / roof);
  std::printf("  blocking             %10.0f cycles  copy + latency + compute    %10.0f  ratio %.3f\n", sync, sum,
              sync / sum);
  std::printf("  blocking / async     %.2fx\n", sync / async);
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t iterations = argc > 1 ? std::atoll(argv[1]) : 100000;
  std::printf("== vxsim interpreter speed (best of 3 runs, load and decode included)\n");
  std::printf("%-22s %12s %10s %15s %15s\n", "program", "executed", "wall ms", "instr/s", "sim cycles/s");
  speedRow("scalar loop", scalarProgram(false), iterations);
  speedRow("scalar loop x10", scalarProgram(false), iterations * 10);
  speedRow("scalar + smem loop", scalarProgram(true), iterations);
  speedRow("stream 64x[128,128]", vxtest::streamProgram(128, 3), 64);

  std::printf("\n== pipelining: stream_out through latched weights\n");
  vx::sim::Config c;
  pipelining("default machine (copy-bound)", c, 64, 1024);
  vx::sim::Config balanced;
  balanced.mxuF32Passes = 4;  // compute per tile R + 8 vs copy 0.94 R: balanced within 7%
  pipelining("mxu_f32_passes = 4 (balanced)", balanced, 64, 1024);
  return 0;
}
