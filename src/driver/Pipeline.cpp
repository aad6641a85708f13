#include "driver/Pipeline.h"

#include <chrono>
#include <optional>
#include <stdexcept>

#include "base/Thread.h"
#include "check/Check.h"
#include "check/Ownership.h"
#include "diag/Render.h"
#include "driver/Consts.h"
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

namespace {

TargetLegality& legalityHook() {
  static TargetLegality hook = nullptr;
  return hook;
}

// An error the test-only overrides let through (--unchecked, the oracle).
bool overridable(const diag::Diagnostic& d, const CheckOptions& options) {
  if (d.severity() != diag::Severity::Error) return true;
  std::string code = d.code();
  if (code == "E6004" || code == "E6005") return true;
  return options.overrideOwnership && (code.rfind("E60", 0) == 0 || code == "W6900");
}

CheckOutput checkPhases(base::SourceMap& sources, base::FileId file, diag::Sink& sink,
                        const CheckOptions& options, std::unique_ptr<hir::Program>& checked, bool& onlyHazardsOut) {
  CheckOutput out;
  ast::Interner names;
  unsigned before = sink.errorCount();
  using Clock = std::chrono::steady_clock;
  auto seconds = [](Clock::time_point a) { return std::chrono::duration<double>(Clock::now() - a).count(); };
  // Without the language server's cache (and what goes with it) the
  // ownership check is split in two parts (below), each with a Z3 context
  // of its own: they are made while this thread parses and types.
  bool split = !options.ownershipCache && !options.tokenStates && !options.deferFunction && !options.proofLog &&
               !options.onAnalyse;
  std::optional<smt::Prepared> prepared;
  if (split) prepared.emplace(2);
  Clock::time_point start = Clock::now();
  ast::Module module = parse::parseFile(sources, file, names, sink);
  out.parseSeconds = seconds(start);
  if (options.emit == Emit::Ast) out.emitted = ast::printModule(module, names);
  if (sink.errorCount() > before) return out;  // no later phase sees a broken file
  target::TargetKind target = target::targetByName(options.target).value_or(target::TargetKind::Cpu);
  if (!options.consts.empty()) {
    out.usageError = applyConstOverrides(module, names, options.consts, target);
    if (!out.usageError.empty()) return out;
  }
  start = Clock::now();
  std::unique_ptr<hir::Program> prog = check::checkTypes(sources, prelude(), module, names, sink, target);
  out.typeSeconds = seconds(start);
  if (options.emit == Emit::Hir) out.emitted = hir::printProgram(*prog);
  if (options.onTyped) options.onTyped(*prog);
  // The ownership checker reads well-typed HIR only: a type error would
  // otherwise be reported again as its consequences.
  if (sink.errorCount() > before || options.stopAfterTypes) return out;
  if (options.emit == Emit::CheckerIr) out.emitted = check::printCheckerIr(*prog, sources);
  check::OwnershipOptions own;
  std::vector<uint32_t> unproved, provedBlocks;
  own.unproved = &unproved;
  own.provedBlocks = &provedBlocks;
  own.proofLog = options.proofLog;
  own.rlimitPerQuery = options.solverRlimit;
  own.cache = options.ownershipCache;
  own.cancel = options.cancel;
  own.onAnalyse = options.onAnalyse;
  own.tokenStates = options.tokenStates;
  own.defer = options.deferFunction;
  own.deferred = options.deferredFunctions;
  if (prepared) own.prepared = &*prepared;
  // What the target's backend cannot build is reported with the code and
  // span `vxc build` would give it. The legality pass reads the typed
  // program only, so it runs on a second thread while the ownership
  // checker runs here; its findings count when the checker reports no
  // error (as if it had run after it).
  //
  // Without the language server's cache (and what goes with it), the
  // ownership check is split in two parts (check::checkOwnershipPart): this
  // thread checks the first, the second thread the rest once legality is
  // done. The shares (9 : 5 by the functions' text) balance the two
  // threads on the benchmark (bench/checker.sh: legality costs about 0.4 of
  // the ownership check; `vxc check --stats` prints each thread's part) and
  // are fixed, so that which functions share a solver cache never depends
  // on the machine.
  bool legality = options.targetLegality && legalityHook() && !options.deferLegality;
  diag::Sink legalSink, secondSink;
  double legalSeconds = 0;
  std::optional<check::OwnershipSplit> parts;
  if (split) parts = check::splitOwnership(*prog, legality ? std::vector<double>{9, 5} : std::vector<double>{1, 1});
  std::vector<uint32_t> secondUnproved, secondProved;
  check::OwnershipStats secondStats;
  check::OwnershipOptions secondOwn = own;
  secondOwn.unproved = &secondUnproved;
  secondOwn.provedBlocks = &secondProved;
  std::exception_ptr secondFailed;
  std::optional<base::Thread> second;
  const hir::Program& typed = *prog;
  if (legality || split)
    second.emplace([&, target] {
      try {
        if (legality) {
          Clock::time_point t0 = Clock::now();
          legalityHook()(target, typed, sources, file, legalSink);
          legalSeconds = seconds(t0);
        }
        if (split) {
          Clock::time_point t0 = Clock::now();
          check::checkOwnershipPart(*parts, 1, typed, sources, secondSink, target, secondOwn,
                                    options.ownershipStats ? &secondStats : nullptr);
          out.secondPartSeconds = seconds(t0);
        }
      } catch (...) {
        secondFailed = std::current_exception();
      }
    });
  start = Clock::now();
  size_t mark = sink.diagnostics().size();
  std::exception_ptr firstFailed;
  try {
    if (split) {
      check::checkOwnershipPart(*parts, 0, *prog, sources, sink, target, own, options.ownershipStats);
      out.firstPartSeconds = seconds(start);
    } else
      check::checkOwnership(*prog, sources, sink, target, own, options.ownershipStats);
  } catch (...) {
    firstFailed = std::current_exception();
  }
  if (second) second->join();
  out.ownershipSeconds = seconds(start);
  if (firstFailed) std::rethrow_exception(firstFailed);
  if (secondFailed) std::rethrow_exception(secondFailed);
  for (const diag::Diagnostic& d : secondSink.diagnostics()) sink.emit(d);
  unproved.insert(unproved.end(), secondUnproved.begin(), secondUnproved.end());
  provedBlocks.insert(provedBlocks.end(), secondProved.begin(), secondProved.end());
  if (options.ownershipStats) *options.ownershipStats += secondStats;
  out.legalitySeconds = legalSeconds;
  // --unchecked (tests only): go on when every new error is E6004 or E6005.
  bool onlyHazards = options.overrideHazards || options.overrideOwnership;
  for (size_t i = mark; i < sink.diagnostics().size(); ++i)
    if (!overridable(sink.diagnostics()[i], options)) onlyHazards = false;
  // Unproved functions that get built (the lint allowed or warned) are
  // checked at run time instead, which the backend sees: legality runs
  // again on the program it will build.
  for (uint32_t f : unproved) prog->fns[f].runtimeChecks = true;
  prog->provedBlocks.insert(provedBlocks.begin(), provedBlocks.end());
  if (legality && sink.errorCount() == before) {
    if (unproved.empty()) {
      for (const diag::Diagnostic& d : legalSink.diagnostics()) sink.emit(d);
    } else {
      start = Clock::now();
      legalityHook()(target, *prog, sources, file, sink);
      out.legalitySeconds += seconds(start);
    }
  }
  out.target = target;
  if (options.deferLegality && options.targetLegality && legalityHook() && sink.errorCount() == before)
    out.legalityPending = std::move(prog);  // `program` stays unset
  checked = std::move(prog);
  onlyHazardsOut = onlyHazards;
  return out;
}

}  // namespace

void setTargetLegality(TargetLegality legality) { legalityHook() = legality; }

const check::Prelude& prelude() {
  static const check::Prelude parsed = [] {
    check::Prelude p;
    p.text = check::preludeSource();
    base::SourceMap sources;
    base::FileId file = sources.add("<prelude>", p.text);
    diag::Sink sink;
    p.module = parse::parseFile(sources, file, p.names, sink);
    if (sink.hasErrors()) throw std::runtime_error("the embedded prelude does not parse");
    return p;
  }();
  return parsed;
}

CheckOutput checkFile(base::SourceMap& sources, base::FileId file, diag::Sink& sink,
                      const CheckOptions& options) {
  unsigned before = sink.errorCount();
  std::unique_ptr<hir::Program> prog;
  bool onlyHazards = false;
  CheckOutput out = checkPhases(sources, file, sink, options, prog, onlyHazards);
  // Lint levels decide which warnings are errors: only then is it known
  // whether the program goes on ("only checked HIR goes on").
  diag::applyLintLevels(sink, sources, options.lints);
  if (onlyHazards)
    for (const diag::Diagnostic& d : sink.diagnostics())
      if (!overridable(d, options)) onlyHazards = false;
  if (prog && (sink.errorCount() == before || onlyHazards)) out.program = std::move(prog);
  return out;
}

void runLegality(const CheckOutput& out, const base::SourceMap& sources, base::FileId file, diag::Sink& sink) {
  if (out.legalityPending && legalityHook()) legalityHook()(out.target, *out.legalityPending, sources, file, sink);
}

std::vector<FlagSpec> lintFlagSpecs() { return {{"-D", true, {}}, {"-W", true, {}}, {"-A", true, {}}}; }

diag::LintOptions lintOptions(const ParsedArgs& args, std::string& error) {
  diag::LintOptions o;
  for (const auto& [flag, value] : args.ordered) {
    diag::LintLevel level = flag == "-D" ? diag::LintLevel::Deny
                            : flag == "-W" ? diag::LintLevel::Warn
                            : flag == "-A" ? diag::LintLevel::Allow
                                           : diag::LintLevel::Warn;
    if (flag == "-D" || flag == "-W" || flag == "-A") o.flags.emplace_back(value, level);
  }
  error = o.validate();
  return o;
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
