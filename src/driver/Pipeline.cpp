#include "driver/Pipeline.h"

#include "check/Check.h"
#include "check/Ownership.h"
#include "diag/Render.h"
#include "hir/Hir.h"
#include "parse/Parse.h"

namespace vx::driver {

std::string version() {
#ifdef VXC_VERSION
  return VXC_VERSION;
#else
  return "0.1.0";
#endif
}

CheckOutput checkFile(base::SourceMap& sources, base::FileId file, diag::Sink& sink,
                      const CheckOptions& options) {
  CheckOutput out;
  ast::Interner names;
  unsigned before = sink.errorCount();
  ast::Module module = parse::parseFile(sources, file, names, sink);
  if (options.emit == Emit::Ast) out.emitted = ast::printModule(module, names);
  if (sink.errorCount() > before) return out;  // no later phase sees a broken file
  bool known = false;
  check::Target target = check::loadTarget(options.target, known);
  std::unique_ptr<hir::Program> prog = check::checkTypes(sources, module, names, sink, target);
  if (options.emit == Emit::Hir) out.emitted = hir::printProgram(*prog);
  // The ownership checker reads well-typed HIR only: a type error would
  // otherwise be reported again as its consequences.
  if (sink.errorCount() > before) return out;
  check::OwnershipOptions own;
  own.proofLog = options.proofLog;
  own.rlimitPerQuery = options.solverRlimit;
  check::checkOwnership(*prog, sources, sink, target, own, options.ownershipStats);
  if (sink.errorCount() == before) out.program = std::move(prog);
  return out;
}

std::string renderAll(diag::Sink& sink, const base::SourceMap& sources, Format format, bool color) {
  sink.sort(sources);
  std::string out;
  switch (format) {
    case Format::Human:
      for (const auto& d : sink.diagnostics()) out += diag::renderHuman(d, sources, color) + "\n";
      out += diag::renderSummary(sink.errorCount(), sink.warningCount(), color);
      break;
    case Format::Json:
      for (const auto& d : sink.diagnostics()) out += diag::renderJson(d, sources) + "\n";
      break;
    case Format::Sarif:
      out = diag::renderSarif(sink.diagnostics(), sources, version());
      break;
  }
  return out;
}

}  // namespace vx::driver
