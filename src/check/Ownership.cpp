// Entry of the ownership checker: one walk per user function.
#include "check/Ownership.h"

#include "check/OwnState.h"
#include "diag/DiagKinds.h"

namespace vx::check {

using namespace own;

void checkOwnership(const hir::Program& prog, const base::SourceMap& sources, diag::Sink& sink,
                    const Target& target, const OwnershipOptions& options, OwnershipStats* stats) {
  smt::SolverLimits limits;
  limits.timeoutMs = options.timeoutMs;
  limits.rlimitPerFunction = options.rlimitPerFunction;
  limits.rlimitPerQuery = options.rlimitPerQuery;
  Walk w(prog, sources, sink, target, limits);
  w.solver.setLog(options.proofLog);
  for (const auto& f : prog.fns) {
    if (f.isExtern || !f.body.valid()) continue;
    w.fn = &f;
    w.transfers.clear();
    w.reported.clear();
    w.blockLocals.clear();
    w.shown.clear();
    w.display.clear();
    w.terms.newEpoch();
    w.displayUsed.clear();
    w.assumptions = w.terms.tru();
    w.solver.resetFunctionBudget();
    w.steps = 0;
    w.exhausted = false;
    w.termLimit = w.terms.size() + 2'000'000;
    w.deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(options.functionBudgetMs);
    State s;
    s.pc = w.terms.tru();
    w.blockLocals.emplace_back();
    // Parameters: tokens arrive live (the caller handed over the obligation),
    // move-only values arrive owned, scalars are unknown inputs.
    for (hir::LocalId p : f.params) {
      const hir::Local& l = prog.local(p);
      w.blockLocals.back().push_back(p);
      if (isTokenType(w, l.type)) {
        Transfer t;
        t.tokenName = l.name;
        t.span = l.span;
        w.transfers.push_back(t);
        uint32_t k = static_cast<uint32_t>(w.transfers.size() - 1);
        s.inflight[k] = w.terms.tru();
        s.tokens[p.index].holds[k] = w.terms.tru();
      } else if (isMoveOnly(w, l.type)) {
        s.moved[p.index] = w.terms.fls();
      } else {
        hir::TyKind k = w.types().kind(w.types().resolve(l.type));
        if (k == hir::TyKind::Int || k == hir::TyKind::Bool) s.scalars[p.index] = freshFor(w, p);
      }
    }
    walkBlock(w, s, f.body);
    // A token parameter the function never consumed is dropped at its end.
    if (!w.terms.isFalse(s.pc))
      for (hir::LocalId p : f.params) {
        auto it = s.tokens.find(p.index);
        if (it != s.tokens.end())
          checkDropped(w, s, it->second, prog.block(f.body).closeBrace, prog.local(p).name, 0);
      }
    w.blockLocals.clear();
    if (w.exhausted)
      sink.emit(diag::SolverGaveUp("that `" + f.name + "` uses its tokens and buffers correctly")
                    .primary(f.nameSpan, "the checker's budget ran out in this function")
                    .note("its loops nest too deeply or its facts did not settle; nothing after the point "
                          "where the budget ran out was checked")
                    .help("split the function, or simplify the loop nest"));
    checkFootprint(w, f);
  }
  if (stats) {
    const smt::SolverStats& ss = w.solver.stats();
    stats->queries += ss.queries;
    stats->trivial += ss.trivial;
    stats->cacheHits += ss.cacheHits;
    stats->solverCalls += ss.solverCalls;
    stats->unknowns += ss.unknowns;
    stats->solverSeconds += ss.solverSeconds;
  }
}

}  // namespace vx::check
