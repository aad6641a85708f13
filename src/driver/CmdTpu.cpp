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
  base::ReadResult r = base::readFile(opts.file);
  if (!r.error.empty()) return usageError(r.error);
  base::SourceMap sources;
  diag::Sink sink;
  base::FileId id = sources.add(opts.file, std::move(r.text));
  CheckOptions check;
  check.target = "tpu";
  check.overrideHazards = opts.unchecked;
  // The build lowers the program itself and reports the same diagnostics.
  check.targetLegality = false;
  check.lints = opts.lints;
  check.solverRlimit = opts.solverRlimit;
  CheckOutput checked = checkFile(sources, id, sink, check);
  std::optional<codegen::tpu::Kernel> kernel;
  std::string usage;
  if (checked.program) {
    dialect::VirOptions vo;
    vo.target = "tpu";
    vo.syncBaseline = opts.syncBaseline;
    std::unique_ptr<dialect::Vir> vir = dialect::buildVir(*checked.program, sources, id, vo, sink);
    if (vir) {
      codegen::tpu::LowerOptions lo;
      lo.entry = entry;
      lo.sourceName = opts.file;
      kernel = codegen::tpu::lowerKernel(*vir, id, lo, sink, usage);
    }
  }
  if (!sink.diagnostics().empty()) {
    std::string rendered = renderAll(sink, sources, opts.format, opts.color);
    std::fputs(rendered.c_str(), opts.format == Format::Sarif ? stdout : stderr);
    if (kernel && sink.hasErrors())
      std::fputs("warning: --unchecked: built although the checker rejected the program (for tests only)\n", stderr);
  }
  if (!usage.empty()) return usageError(usage);
  if (!kernel) return 1;
  out = std::move(*kernel);
  return 0;
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
