#include "driver/Backends.h"

#include <functional>
#include <set>
#include <tuple>

#include "codegen/tpu/Tpu.h"
#include "dialect/Vir.h"
#include "driver/Pipeline.h"

namespace vx::driver {

namespace {

// Diagnostics of several lowerings, each once (entries share callees).
void emitOnce(diag::Sink& from, diag::Sink& into, std::set<std::tuple<uint32_t, uint32_t, std::string>>& seen) {
  for (const diag::Diagnostic& d : from.diagnostics()) {
    base::Span s = d.primarySpan();
    if (seen.insert({s.begin, s.end, d.message}).second) into.emit(d);
  }
}

// Every backend lowers the checked HIR to VIR for its target: what VIR or
// the target-legality pass cannot take is E0206. A module only the
// legality pass reads is not verified (`vxc build` verifies the module it
// builds, in its own lowering).
std::unique_ptr<dialect::Vir> virFor(target::TargetKind t, const hir::Program& program,
                                     const base::SourceMap& sources, base::FileId file, diag::Sink& sink,
                                     dialect::Locations locations, bool verify) {
  dialect::VirOptions vo;
  vo.target = target::info(t).name;
  vo.locations = locations;
  vo.verify = verify;
  return dialect::buildVir(program, sources, file, vo, sink);
}

// A legality check lowers without locations first, uniquing none, and
// again with them only when it has something to report, into `sink`: the
// same findings, placed. Most programs are legal, and a location per op
// was 40% of the check's legality thread.
void placedOnDemand(const std::function<void(dialect::Locations, diag::Sink&)>& run, diag::Sink& sink) {
  diag::Sink scratch;
  run(dialect::Locations::None, scratch);
  if (!scratch.diagnostics().empty()) run(dialect::Locations::SpanOnly, sink);
}

void cpuLegality(const hir::Program& program, const base::SourceMap& sources, base::FileId file, diag::Sink& sink) {
  placedOnDemand(
      [&](dialect::Locations locations, diag::Sink& into) {
        virFor(target::TargetKind::Cpu, program, sources, file, into, locations, /*verify=*/false);
      },
      sink);
}

// The tpu target lowers one kernel at a time: every function that can be an
// entry is lowered, and what any of them cannot be is reported.
void tpuKernelsLegality(const hir::Program& program, const base::SourceMap& sources, base::FileId file,
                        diag::Sink& sink, dialect::Locations locations) {
  // The tpu backend's kernel lowering reads the module: it is verified.
  std::unique_ptr<dialect::Vir> vir =
      virFor(target::TargetKind::Tpu, program, sources, file, sink, locations, /*verify=*/true);
  if (!vir) return;
  std::set<std::tuple<uint32_t, uint32_t, std::string>> seen;
  for (const hir::Function& f : program.fns) {
    if (f.isExtern || !f.body.valid() || f.fromPrelude || f.topology != hir::Topology::TensorCore) continue;
    diag::Sink local;
    std::string usage;
    codegen::tpu::LowerOptions lo;
    lo.entry = f.name;
    lo.sourceName = sources.file(file).path();
    codegen::tpu::lowerKernel(*vir, file, lo, local, usage);
    emitOnce(local, sink, seen);
  }
}

void tpuLegality(const hir::Program& program, const base::SourceMap& sources, base::FileId file, diag::Sink& sink) {
  placedOnDemand(
      [&](dialect::Locations locations, diag::Sink& into) {
        tpuKernelsLegality(program, sources, file, into, locations);
      },
      sink);
}

void gpuLegality(target::TargetKind t, const hir::Program& program, const base::SourceMap& sources,
                 base::FileId file, diag::Sink& sink) {
  placedOnDemand(
      [&](dialect::Locations locations, diag::Sink& into) {
        virFor(t, program, sources, file, into, locations, /*verify=*/false);
      },
      sink);
}
void b200Legality(const hir::Program& p, const base::SourceMap& s, base::FileId f, diag::Sink& k) {
  gpuLegality(target::TargetKind::B200, p, s, f, k);
}
void h100Legality(const hir::Program& p, const base::SourceMap& s, base::FileId f, diag::Sink& k) {
  gpuLegality(target::TargetKind::H100, p, s, f, k);
}

void legality(target::TargetKind t, const hir::Program& program, const base::SourceMap& sources, base::FileId file,
              diag::Sink& sink) {
  backendFor(t).legality(program, sources, file, sink);
}

const Backend kCpu{target::TargetKind::Cpu, cpuLegality, /*builds=*/true, /*runs=*/true, /*cudaArch=*/nullptr};
const Backend kTpu{target::TargetKind::Tpu, tpuLegality, /*builds=*/true, /*runs=*/true, /*cudaArch=*/nullptr};
const Backend kB200{target::TargetKind::B200, b200Legality, /*builds=*/true, /*runs=*/true, "sm_100a"};
const Backend kH100{target::TargetKind::H100, h100Legality, /*builds=*/true, /*runs=*/true, "sm_90a"};

}  // namespace

const Backend& backendFor(target::TargetKind t) {
  switch (t) {
    case target::TargetKind::Cpu: return kCpu;
    case target::TargetKind::Tpu: return kTpu;
    case target::TargetKind::B200: return kB200;
    case target::TargetKind::H100: return kH100;
  }
  return kCpu;
}

void registerBackends() { setTargetLegality(legality); }

}  // namespace vx::driver
