// The tpu branches of `vxc build` and `vxc run`: check, lower to VIR, lower
// to a .vxdma program (src/codegen/tpu), then write it or simulate it.
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "codegen/tpu/Tpu.h"
#include "dialect/Vir.h"
#include "driver/Args.h"
#include "driver/Commands.h"
#include "driver/Pipeline.h"
#include "tpu/Asm.h"

namespace vx::driver {

namespace {

// 0, 1 (diagnostics printed) or 2 (usage error printed).
int compileToTpu(const FrontOptions& opts, const std::string& entry, codegen::tpu::Kernel& out) {
  FrontOptions tpu = opts;
  tpu.target = "tpu";
  std::string usage;
  int rc = frontToVir(tpu, [&](dialect::Vir& vir, base::FileId id, diag::Sink& sink) {
    codegen::tpu::LowerOptions lo;
    lo.entry = entry;
    lo.sourceName = opts.file;
    std::optional<codegen::tpu::Kernel> kernel = codegen::tpu::lowerKernel(vir, id, lo, sink, usage);
    if (kernel) out = std::move(*kernel);
    return kernel.has_value();
  });
  if (!usage.empty()) return usageError(usage);
  return rc;
}

}  // namespace

int buildTpu(const FrontOptions& opts, const std::string& entry, const std::string& output) {
  codegen::tpu::Kernel k;
  if (int rc = compileToTpu(opts, entry, k)) return rc;
  std::ofstream f(output, std::ios::binary);
  f << tpu::print(k.program);
  f.close();
  if (!f) return usageError("cannot write `" + output + "`");
  return 0;
}

int runTpu(const FrontOptions& opts, const std::string& entry, uint64_t seed, const std::vector<std::string>& kvs) {
  codegen::tpu::Kernel k;
  if (int rc = compileToTpu(opts, entry, k)) return rc;
  sim::Options so;
  so.seed = seed;
  so.programName = std::filesystem::path(opts.file).stem().string() + ".vxdma";
  if (std::string e = codegen::tpu::kernelArgs(k, kvs, so.args); !e.empty()) return usageError(e);
  sim::Result r = sim::run(k.program, so);
  if (r.status == sim::Status::Ok) {
    std::fputs(codegen::tpu::runReport(k, r).c_str(), stdout);
    return 0;
  }
  std::fflush(stdout);
  if (std::string trap = codegen::tpu::trapMessage(k, r); !trap.empty()) {
    std::fprintf(stderr, "error: %s\n", trap.c_str());
    return 1;  // the program's own error, as a trap on the cpu target
  }
  std::fputs(sim::report(r).c_str(), stderr);
  return r.exitCode();  // 2: cannot load (sizes), 3: a runtime fault (a race, a DMA out of bounds)
}

}  // namespace vx::driver
