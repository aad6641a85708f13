// The front-end pipeline shared by `vxc check`, `vxc test-ui` and (later) the
// language server: one function, so there is never a second front end.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ast/Ast.h"
#include "base/Source.h"
#include "diag/Lint.h"
#include "diag/Sink.h"
#include "driver/Args.h"
#include "check/Check.h"
#include "check/Ownership.h"
#include "hir/Hir.h"
#include "target/Target.h"

namespace vx::driver {

enum class Emit { None, Ast, Hir, CheckerIr };

struct CheckOptions {
  Emit emit = Emit::None;
  // `--const NAME=VALUE`: const items' values from the command line
  // (driver/Consts.h); a bad one is CheckOutput::usageError.
  std::vector<std::string> consts;
  std::string target = "cpu";  // cpu, tpu, b200, h100
  bool stopAfterTypes = false;  // benchmarks of the front end through type checking
  std::vector<std::string>* proofLog = nullptr;  // --explain-proof: solver queries
  unsigned solverRlimit = 2'000'000;             // per query (--solver-rlimit)
  check::OwnershipStats* ownershipStats = nullptr;
  // Hand the program on although the ownership checker reported E6004 or
  // E6005 (and nothing else): `--unchecked`, for the tests that run what the
  // checker rejects in the simulator. Never set by user-facing paths.
  bool overrideHazards = false;
  // The same for every ownership error (E6001-E6008, W6900): the soundness
  // oracle (bench/soundness) runs what the checker rejects. Never user-facing.
  bool overrideOwnership = false;
  // -D/-W/-A NAME and -D warnings (docs/diagnostics.md, Lint levels).
  diag::LintOptions lints;
  // Run the target's legality (what its backend cannot build, E0206) after
  // the checks, so that `vxc check --target T` accepts exactly what `vxc
  // build --target T` builds. Off only for the front end's own benchmarks.
  bool targetLegality = true;
  // The language server: results of unchanged functions reused from the
  // document's cache, a check abandoned (check::Cancelled thrown) once a
  // newer text arrives, and each function named before it is analysed.
  check::OwnershipCache* ownershipCache = nullptr;
  // Leave the target's legality to runLegality, on the program returned in
  // CheckOutput::legalityPending (the language server publishes what came
  // before it first).
  bool deferLegality = false;
  const std::atomic<bool>* cancel = nullptr;
  std::function<void(const std::string& fn)> onAnalyse;
  // Called with the typed program, type errors or not (the language
  // server's index of names).
  std::function<void(const hir::Program&)> onTyped;
  // Functions the ownership checker leaves for a later check
  // (check::OwnershipOptions::defer), and those it left.
  std::function<bool(const std::string& fn)> deferFunction;
  std::vector<std::string>* deferredFunctions = nullptr;
  // Token states after each statement (hover, inlay hints), when wanted.
  std::vector<check::FunctionStates>* tokenStates = nullptr;
};

// What a target cannot build, reported into the sink (E0206): the backend
// registry's (Backends.h), installed by the `vxc` executable; the front end
// alone (unit tests, fuzzers) runs without it.
using TargetLegality = void (*)(target::TargetKind, const hir::Program&, const base::SourceMap&, base::FileId,
                                diag::Sink&);
void setTargetLegality(TargetLegality legality);

// The lint flags of a command line (`-D NAME`, `-W NAME`, `-A NAME`), and
// the specs that accept them; `error` is set for an unknown lint.
std::vector<FlagSpec> lintFlagSpecs();
diag::LintOptions lintOptions(const ParsedArgs& args, std::string& error);

struct CheckOutput {
  std::string emitted;  // what --emit asked for, for stdout
  std::string usageError;  // a `--const` that does not apply: nothing was checked
  // Seconds spent per phase, for `vxc check --stats` and benchmarks.
  double parseSeconds = 0, typeSeconds = 0, ownershipSeconds = 0, legalitySeconds = 0;
  // Of the ownership phase: the first thread's part and the second's
  // (which runs after legality there), when the check is split.
  double firstPartSeconds = 0, secondPartSeconds = 0;
  // The checked HIR, set only when every phase passed without errors: what
  // the backends lower ("only checked HIR goes on").
  std::unique_ptr<hir::Program> program;
  // deferLegality: the program legality is still to run on (set only when
  // it would have run; `program` is then never set), and the target.
  std::unique_ptr<hir::Program> legalityPending;
  target::TargetKind target = target::TargetKind::Cpu;
};

// The legality that CheckOptions::deferLegality left out, reported into
// `sink` as checkFile would have.
void runLegality(const CheckOutput& out, const base::SourceMap& sources, base::FileId file, diag::Sink& sink);

// Checks file `file` of `sources`, reporting into `sink`. Stops after parsing
// when the file has lexical or syntax errors.
CheckOutput checkFile(base::SourceMap& sources, base::FileId file, diag::Sink& sink,
                      const CheckOptions& options);

// Renders every diagnostic of `sink` (sorted) plus the summary line.
enum class Format { Human, Json, Sarif };
std::string renderAll(diag::Sink& sink, const base::SourceMap& sources, Format format, bool color);

std::string version();

// The prelude, parsed once per process (thread-safe), for every check.
const check::Prelude& prelude();

}  // namespace vx::driver
