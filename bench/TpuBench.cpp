// tpu target benchmark: the stream and GEMM examples compiled by vxc (async
// and --sync-baseline) and simulated; the async build's cycles against the
// roofline max(DMA time, compute time), the baseline's against their sum.
// DMA time is the HBM bytes moved at the link's bandwidth; compute time the
// matrix and vector units' busy cycles. bench/tpu.sh builds and runs it.
//   vx_bench_tpu ROOT [--set KEY=VALUE]...   (machine parameters, as vxsim)
#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "codegen/tpu/Tpu.h"
#include "dialect/Vir.h"
#include "driver/Pipeline.h"
#include "sim/Sim.h"

namespace {

struct Case {
  const char* name;
  const char* file;
  std::vector<std::pair<std::string, int64_t>> args;  // `.param`s
  const char* shape;
};

vx::tpu::Program compile(const std::string& path, bool sync) {
  vx::base::ReadResult r = vx::base::readFile(path);
  if (!r.error.empty()) {
    std::fprintf(stderr, "%s\n", r.error.c_str());
    std::exit(2);
  }
  vx::base::SourceMap sources;
  vx::diag::Sink sink;
  vx::base::FileId id = sources.add(path, std::move(r.text));
  vx::driver::CheckOptions check;
  check.target = "tpu";
  vx::driver::CheckOutput checked = vx::driver::checkFile(sources, id, sink, check);
  std::unique_ptr<vx::dialect::Vir> vir;
  std::optional<vx::codegen::tpu::Kernel> k;
  std::string usage;
  if (checked.program) {
    vx::dialect::VirOptions vo;
    vo.target = "tpu";
    vo.syncBaseline = sync;
    vir = vx::dialect::buildVir(*checked.program, sources, id, vo, sink);
  }
  if (vir) k = vx::codegen::tpu::lowerKernel(*vir, id, {}, sink, usage);
  if (!k) {
    std::fputs(vx::driver::renderAll(sink, sources, vx::driver::Format::Human, false).c_str(), stderr);
    std::fprintf(stderr, "%s\n", usage.c_str());
    std::exit(1);
  }
  return k->program;
}

struct Measure {
  uint64_t cycles = 0;
  double dma = 0, compute = 0;
};

Measure simulate(const vx::tpu::Program& p, const Case& c, const vx::sim::Config& config) {
  vx::sim::Options o;
  o.args = c.args;
  o.config = config;
  o.trace = true;  // for the DMA records: bytes per transfer
  o.config.traceMaxEvents = uint64_t{1} << 24;
  vx::sim::Result r = vx::sim::run(p, o);
  if (r.status != vx::sim::Status::Ok || r.traceTruncated) {
    std::fprintf(stderr, "%s%s\n", vx::sim::report(r).c_str(), r.traceTruncated ? "trace truncated" : "");
    std::exit(1);
  }
  Measure m;
  m.cycles = r.cycles;
  double hbm = 0;
  for (const vx::sim::DmaRecord& d : r.dmas) {
    bool src = p.buffers[d.src].space == vx::tpu::Space::Hbm, dst = p.buffers[d.dst].space == vx::tpu::Space::Hbm;
    hbm += static_cast<double>(d.bytes) * (src && dst ? 2 : src || dst ? 1 : 0);  // HBM to HBM crosses twice
  }
  // A grid's instances run on several cores (units `coreN.matrix`): the
  // compute bound is the busiest core's, the DMA bound the bytes over the
  // ports of the cores used (at most the chip's HBM).
  std::map<std::string, double> perCore;
  for (const vx::sim::UnitUsage& u : r.units) {
    size_t dot = u.name.rfind('.');
    std::string core = dot == std::string::npos ? "" : u.name.substr(0, dot);
    std::string unit = dot == std::string::npos ? u.name : u.name.substr(dot + 1);
    if (unit == "matrix" || unit == "vector") perCore[core] += static_cast<double>(u.busyCycles);
  }
  for (const auto& [core, busy] : perCore) m.compute = std::max(m.compute, busy);
  double ports = static_cast<double>(std::max<size_t>(perCore.size(), 1)) * config.hbmBytesPerCycle();
  m.dma = hbm / std::min(ports, config.hbmChipGbps / config.clockGhz);
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: vx_bench_tpu ROOT [--set KEY=VALUE]...\n");
    return 2;
  }
  std::string root = argv[1];
  vx::sim::Config base;
  for (int i = 2; i + 1 < argc; i += 2) {
    std::string kv = argv[i + 1], error;
    size_t eq = kv.find('=');
    if (std::string(argv[i]) != "--set" || eq == std::string::npos ||
        !vx::sim::setConfig(base, kv.substr(0, eq), kv.substr(eq + 1), error)) {
      std::fprintf(stderr, "bad option `%s %s` %s\n", argv[i], kv.c_str(), error.c_str());
      return 2;
    }
  }
  std::vector<Case> cases = {
      {"stream", "examples/stream.vx", {{"tiles_len", 256}}, "256 tiles of 128x128 f32"},
      {"gemm", "examples/gemm.vx", {{"a_len", 128}, {"b_len", 128}, {"c_len", 4}, {"kt", 64}},
       "256x8192 @ 8192x256 f32 (2x2 tiles of C, K = 64 tiles)"},
      // The pipeline form (docs/pipeline.md) at its default depths.
      {"stream_pipelined", "examples/stream_pipelined.vx", {{"m", 65536}},
       "65536x128 f32 in 256 blocks of 256 rows, depth 4"},
      {"gemm_rowmajor", "examples/gemm_rowmajor.vx", {{"m", 256}, {"n", 256}, {"k", 8192}},
       "256x8192 @ 8192x256 f32 (2x2 tiles of C, K = 64 blocks), depth 4"},
  };
  std::vector<std::pair<std::string, uint64_t>> latencies = {{"default (dma_latency 500)", base.dmaLatency},
                                                             {"dma_latency 50", 50},
                                                             {"dma_latency 0", 0}};
  std::printf("| program | machine | DMA / compute (cycles) | async | max(DMA, compute) | async / max | "
              "baseline | DMA + compute | baseline / sum |\n|---|---|---|---|---|---|---|---|---|\n");
  for (const Case& c : cases) {
    vx::tpu::Program async = compile(root + "/" + c.file, false), sync = compile(root + "/" + c.file, true);
    for (const auto& [label, latency] : latencies) {
      vx::sim::Config cfg = base;
      cfg.dmaLatency = latency;
      Measure a = simulate(async, c, cfg), s = simulate(sync, c, cfg);
      double bound = std::max(a.dma, a.compute), sum = s.dma + s.compute;
      std::printf("| %s (%s) | %s | %.0f / %.0f | %llu | %.0f | %.3f | %llu | %.0f | %.3f |\n", c.name, c.shape,
                  label.c_str(), a.dma, a.compute, static_cast<unsigned long long>(a.cycles), bound,
                  static_cast<double>(a.cycles) / bound, static_cast<unsigned long long>(s.cycles), sum,
                  static_cast<double>(s.cycles) / sum);
      std::fflush(stdout);
    }
  }
  return 0;
}
