// The tpu branches of `vxc build` and `vxc run`: check, lower to VIR, lower
// to a .vxdma program (src/codegen/tpu), then write it or simulate it.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "codegen/tpu/Tpu.h"
#include "dialect/Vir.h"
#include "driver/Args.h"
#include "driver/Commands.h"
#include "driver/TpuReport.h"
#include "driver/Npy.h"
#include "driver/Pipeline.h"
#include "driver/RunData.h"
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
  std::string error;
  return writeFile(output, tpu::print(k.program), error) ? 0 : usageError(error);
}

namespace {

// The entry's parameters as `--input` and `--output` see them: each buffer
// parameter is the HBM buffer of its name.
std::vector<BufferSpec> tpuSpecs(const codegen::tpu::Kernel& k) {
  std::vector<BufferSpec> specs;
  for (const codegen::tpu::KernelParam& p : k.params) {
    BufferSpec s;
    s.name = p.name;
    s.type = p.type;
    s.mut = p.mut;
    switch (p.kind) {
      case codegen::tpu::KernelParam::Kind::Scalar: s.kind = BufferSpec::Kind::Scalar; break;
      case codegen::tpu::KernelParam::Kind::Vec: s.kind = BufferSpec::Kind::Vec; break;
      case codegen::tpu::KernelParam::Kind::Tensor:
      case codegen::tpu::KernelParam::Kind::Pinned: s.kind = BufferSpec::Kind::Tensor; break;
    }
    // Run-time extents (grid.md §1): `--input` shapes give them.
    s.extents = p.extents;
    for (const tpu::Buffer& b : k.program.buffers)
      if (b.name == p.name && b.space == tpu::Space::Hbm)
        for (size_t d = s.kind == BufferSpec::Kind::Vec ? 1 : 0; d < b.shape.size(); ++d)
          s.shape.push_back(b.shape[d].param >= 0 && !p.extents.empty() ? -1 : b.shape[d].value);
    specs.push_back(std::move(s));
  }
  return specs;
}

// A buffer's dimensions with the run's `.param` values.
std::vector<uint64_t> tpuShape(const tpu::Program& p, const tpu::Buffer& b, const sim::Options& so) {
  std::vector<uint64_t> shape;
  for (const tpu::Dim& d : b.shape) {
    int64_t v = d.value;
    if (d.param >= 0) {
      const tpu::Param& param = p.params[static_cast<size_t>(d.param)];
      v = param.defaultValue.value_or(0);
      for (const auto& [name, value] : so.args)
        if (name == param.name) v = value;
    }
    shape.push_back(static_cast<uint64_t>(std::max<int64_t>(v, 0)));
  }
  return shape;
}

}  // namespace

int runTpu(const FrontOptions& opts, const TpuRun& run) {
  codegen::tpu::Kernel k;
  if (int rc = compileToTpu(opts, run.entry, k)) return rc;
  std::vector<BufferSpec> specs = tpuSpecs(k);
  if (run.specs) *run.specs = specs;
  sim::Options so;
  so.seed = run.seed;
  so.programName = std::filesystem::path(opts.file).stem().string() + ".vxdma";
  std::vector<std::string> args = run.args;
  for (const std::string& kv : run.inputs) {
    Input in;
    if (std::string e = readInput(k.program.kernel, specs, kv, args, in); !e.empty()) return usageError(e);
    so.inputs.emplace_back(in.name, std::vector<float>(in.values.size()));
    for (size_t i = 0; i < in.values.size(); ++i) so.inputs.back().second[i] = static_cast<float>(in.values[i]);
  }
  if (std::string e = codegen::tpu::kernelArgs(k, args, so.args); !e.empty()) return usageError(e);
  if (run.entryOut) *run.entryOut = k.program.kernel;
  if (run.argsOut) *run.argsOut = args;
  so.keepOutputs = !run.outputDir.empty();
  so.trace = !run.traceOut.empty() || !run.timelineOut.empty();
  sim::Result r = sim::run(k.program, so);
  // A faulting run still gets its trace: it shows what led up to the fault.
  if (r.status != sim::Status::LoadError) {
    std::string error;
    if (!run.traceOut.empty() && !writeFile(run.traceOut, sim::chromeTraceJson(k.program, r), error))
      return usageError(error);
    if (!run.timelineOut.empty() && !writeFile(run.timelineOut, sim::timelineSvg(k.program, r), error))
      return usageError(error);
  }
  if (r.status == sim::Status::Ok) {
    if (!run.quiet) {
      std::fputs(runReport(k, r).c_str(), stdout);
      std::fputs(sim::profileText(k.program, r).c_str(), stdout);
    }
    for (const BufferSpec& s : specs) {
      if (!so.keepOutputs || !s.mut || s.kind == BufferSpec::Kind::Scalar) continue;
      for (const tpu::Buffer& b : k.program.buffers)
        if (b.name == s.name && b.space == tpu::Space::Hbm)
          for (const sim::Output& o : r.outputs)
            if (o.name == b.name) {
              std::string error;
              if (!writeNpyF32(run.outputDir + "/" + s.name + ".npy", tpuShape(k.program, b, so), o.values, error))
                return usageError(error);
            }
    }
    return 0;
  }
  std::fflush(stdout);
  if (std::string trap = trapMessage(k, r); !trap.empty()) {
    std::fprintf(stderr, "error: %s\n", trap.c_str());
    return 1;  // the program's own error, as a trap on the cpu target
  }
  std::fputs(sim::report(r).c_str(), stderr);
  return r.exitCode();  // 2: cannot load (sizes), 3: a runtime fault (a race, a DMA out of bounds)
}

}  // namespace vx::driver
