// The ownership and typestate checker: moves (E6001), token linearity
// (E6002, E6003), hazards of in-flight transfers (E6004-E6006), on-chip
// footprint (E6007) and conflicting borrows (E6008), on typed HIR. Dataflow
// over structured code with path conditions as formulas; the solver answers
// what dataflow cannot (path feasibility, slot aliasing).
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/Source.h"
#include "target/Target.h"
#include "diag/Sink.h"
#include "hir/Hir.h"
#include "smt/Solver.h"

namespace vx::check {

// The budgets that decide are deterministic: Z3's resource limits, the
// statements walked and the formula nodes made (check/own/Analysis.h), so a
// verdict never depends on the machine's load or on an instrumented build.
// The clocks only stop a runaway, far above what those budgets allow.
// What the ownership checker keeps between checks of one document (the
// language server, docs/lsp.md): per function, its summary and findings,
// reused while the function's text, the consts, the target, the options and
// its callees' results are all unchanged. Spans and the lines named in
// messages follow a function that moved. Owned by one thread at a time.
class OwnershipCache {
 public:
  OwnershipCache();
  ~OwnershipCache();
  OwnershipCache(const OwnershipCache&) = delete;
  OwnershipCache& operator=(const OwnershipCache&) = delete;
  // Lets go of the Z3 context (about 17 MB) and keeps the results: the
  // next check makes a context again. The language server keeps contexts
  // for the documents checked last only.
  void releaseSolver();
  struct Impl;
  std::unique_ptr<Impl> impl;
};

// Thrown out of checkOwnership when `OwnershipOptions::cancel` is set: a
// newer text supersedes the one being checked. What was finished stays in
// the cache.
using Cancelled = smt::Cancelled;

// What a token, or a buffer a copy moves into or out of, is after a
// statement (the language server's hover and inlay hints). Every walk of
// the statement (a loop's first iterations and its general one) is merged.
struct TokenState {
  base::Span fn;     // the function (where it was when analysed: FunctionStates)
  base::Span stmt;   // the statement after which it holds
  std::string name;  // `t`, `pair.0`; for a buffer, `slots`
  bool buffer = false;
  std::string brief;  // "in flight: slots[1]", "waited", "moved", "maybe in flight: ..."
  std::string state;  // the same with each copy's source and line
};

// The token states of one function, shared with the cache: spans, and the
// line markers in the texts (resolveLineMarkers), are where they were when
// the function was analysed, at `anchor`; the function starts at
// `fn.begin` now.
struct FunctionStates {
  std::shared_ptr<const std::vector<TokenState>> states;
  uint32_t anchor = 0;
  base::Span fn;
  int64_t delta() const { return static_cast<int64_t>(fn.begin) - static_cast<int64_t>(anchor); }
};

// Replaces each line marker of `text` (own::lineMarker: a file and a byte
// offset) by the line `lineOf(file, offset)` gives.
std::string resolveLineMarkers(std::string text, const std::function<uint32_t(uint32_t, uint32_t)>& lineOf);

struct OwnershipOptions {
  unsigned timeoutMs = 20'000;          // per solver query (backstop)
  unsigned rlimitPerQuery = 2'000'000;
  unsigned functionBudgetMs = 120'000;  // wall clock of one function's walk (a backstop far above the budgets)
  uint64_t rlimitPerFunction = 50'000'000;
  std::vector<std::string>* proofLog = nullptr;  // --explain-proof
  std::vector<uint32_t>* unproved = nullptr;     // out: functions reported W6900 (FnId indices)
  // out: the `block` calls (ExprId indices) whose bounds were proved; the
  // others are checked at run time (E6009, grid.md §2). Not filled for
  // functions whose results come from the cache.
  std::vector<uint32_t>* provedBlocks = nullptr;
  OwnershipCache* cache = nullptr;               // reuse unchanged functions' results
  const std::atomic<bool>* cancel = nullptr;     // checked between and during functions
  std::vector<FunctionStates>* tokenStates = nullptr;  // out, when wanted
  // Functions to leave for later (the language server's slow ones): one
  // that needs analysing and for which `defer` says so is skipped, and so
  // are its callers; their names go to `deferred`. Nothing is reported or
  // cached for them.
  std::function<bool(const std::string& name)> defer;
  std::vector<std::string>* deferred = nullptr;
  // Called before a function is analysed (not when its result is reused).
  std::function<void(const std::string& name)> onAnalyse;
  // Z3 contexts made ahead (the split check's parts take one each).
  smt::Prepared* prepared = nullptr;
};

struct OwnershipStats {
  uint64_t queries = 0, trivial = 0, cacheHits = 0, solverCalls = 0, unknowns = 0;
  double solverSeconds = 0;
  uint64_t analysed = 0, reused = 0;  // functions walked, and taken from the cache
  OwnershipStats& operator+=(const OwnershipStats& o) {
    queries += o.queries;
    trivial += o.trivial;
    cacheHits += o.cacheHits;
    solverCalls += o.solverCalls;
    unknowns += o.unknowns;
    solverSeconds += o.solverSeconds;
    analysed += o.analysed;
    reused += o.reused;
    return *this;
  }
};

// The check split for threads, for `vxc check` and `vxc build` (no cache,
// token states, deferral or proof log): the strongly connected components
// of the call graph, callees first, cut into as many contiguous parts as
// `shares` has entries, each part's text about its share of the whole.
struct OwnershipSplit {
  std::vector<std::vector<uint32_t>> graph;  // callees by FnId
  std::vector<std::vector<uint32_t>> comps;  // callees first
  std::vector<size_t> bounds;                // part p: comps[bounds[p], bounds[p + 1])
};
OwnershipSplit splitOwnership(const hir::Program& prog, const std::vector<double>& shares);

// Part `part` of `split`: its functions checked and reported into `sink`,
// with a term store and Z3 context of its own, so that the parts run at once
// on different threads; the summaries of callees in earlier parts are
// computed again here, without reporting (a summary is a function of the
// function and its callees' summaries, whichever thread computes it). The
// parts' findings, in part order, are checkOwnership's but for one thing:
// a solver answer cached while checking one function is reused by later
// functions of the same part only, so a query another part answered is put
// to Z3 again, within the same deterministic budgets (rlimitPerQuery,
// rlimitPerFunction); a verdict can differ only for a function whose
// queries come near those budgets, and then it is W6900, never an
// acceptance. Which part a function is in depends on the program only, so
// the verdicts never depend on the machine.
void checkOwnershipPart(const OwnershipSplit& split, size_t part, const hir::Program& prog,
                        const base::SourceMap& sources, diag::Sink& sink, target::TargetKind target,
                        const OwnershipOptions& options, OwnershipStats* stats);

// `vxc check --emit=checker-ir`: the core IR the ownership checker runs
// on, for every user function with a body.
std::string printCheckerIr(const hir::Program& prog, const base::SourceMap& sources);

void checkOwnership(const hir::Program& prog, const base::SourceMap& sources, diag::Sink& sink,
                    target::TargetKind target, const OwnershipOptions& options, OwnershipStats* stats);

}  // namespace vx::check
