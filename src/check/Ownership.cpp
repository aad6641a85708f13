// Entry of the ownership checker (docs/checker.md): functions are analysed
// callees first (the strongly connected components of the call graph in
// reverse topological order), so that every call finds its callee's
// summary; a recursive cycle starts from the top summary.
#include "check/Ownership.h"

#include <algorithm>
#include <functional>

#include "check/own/Analysis.h"

namespace vx::check {

using namespace own;

namespace {

// Callees of each user function.
std::vector<std::vector<uint32_t>> callGraph(const hir::Program& prog) {
  std::vector<std::vector<uint32_t>> out(prog.fns.size());
  // A call belongs to the function whose body encloses its span: bodies
  // sorted by (file, start), one binary search per call.
  struct Body {
    uint32_t file, begin, end, fn;
  };
  std::vector<Body> bodies;
  for (uint32_t f = 0; f < prog.fns.size(); ++f) {
    const hir::Function& fn = prog.fns[f];
    if (fn.isExtern || !fn.body.valid()) continue;
    base::Span s = prog.block(fn.body).span;
    bodies.push_back(Body{s.file.index, s.begin, s.end, f});
  }
  std::sort(bodies.begin(), bodies.end(),
            [](const Body& x, const Body& y) { return x.file != y.file ? x.file < y.file : x.begin < y.begin; });
  for (const hir::Expr& x : prog.exprs) {
    if (x.kind != hir::ExprKind::Call) continue;
    const hir::Function& callee = prog.fn(x.fn);
    if (callee.builtin != hir::Builtin::None || callee.isExtern) continue;
    auto it = std::upper_bound(bodies.begin(), bodies.end(), std::make_pair(x.span.file.index, x.span.begin),
                               [](const std::pair<uint32_t, uint32_t>& k, const Body& b) {
                                 return k.first != b.file ? k.first < b.file : k.second < b.begin;
                               });
    if (it == bodies.begin()) continue;
    --it;
    if (it->file != x.span.file.index || x.span.end > it->end) continue;
    out[it->fn].push_back(x.fn.index);
  }
  return out;
}

// Tarjan's algorithm, iteratively: SCCs in reverse topological order
// (callees before callers).
std::vector<std::vector<uint32_t>> components(const std::vector<std::vector<uint32_t>>& g) {
  size_t n = g.size();
  std::vector<int> index(n, -1), low(n, 0);
  std::vector<bool> onStack(n, false);
  std::vector<uint32_t> stack;
  std::vector<std::vector<uint32_t>> out;
  int next = 0;
  for (uint32_t root = 0; root < n; ++root) {
    if (index[root] >= 0) continue;
    std::vector<std::pair<uint32_t, size_t>> work{{root, 0}};
    while (!work.empty()) {
      auto& [v, i] = work.back();
      if (i == 0 && index[v] < 0) {
        index[v] = low[v] = next++;
        stack.push_back(v);
        onStack[v] = true;
      }
      if (i < g[v].size()) {
        uint32_t w = g[v][i++];
        if (index[w] < 0) {
          work.emplace_back(w, 0);
        } else if (onStack[w]) {
          low[v] = std::min(low[v], index[w]);
        }
        continue;
      }
      if (low[v] == index[v]) {
        std::vector<uint32_t> comp;
        uint32_t w;
        do {
          w = stack.back();
          stack.pop_back();
          onStack[w] = false;
          comp.push_back(w);
        } while (w != v);
        out.push_back(std::move(comp));
      }
      uint32_t done = v;
      work.pop_back();
      if (!work.empty()) low[work.back().first] = std::min(low[work.back().first], low[done]);
    }
  }
  return out;
}

void analyse(const hir::Program& prog, const base::SourceMap& sources, diag::Sink& sink, target::TargetKind target,
             TermStore& terms, smt::Solver& solver, std::vector<Summary>& summaries, uint32_t index,
             const OwnershipOptions& options) {
  const hir::Function& f = prog.fns[index];
  Analysis a(prog, sources, target, terms, solver, summaries, f, index);
  a.facts = computeFacts(prog, f);
  terms.newEpoch();
  solver.resetFunctionBudget();
  a.termLimit = terms.size() + 2'000'000;
  a.deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(options.functionBudgetMs);
  State s;
  s.pc = terms.tru();
  a.scopes.emplace_back();
  // Parameters: tokens arrive in flight (the caller handed over the
  // obligation; where their copies go is the caller's business), references
  // are roots of their own, owned values arrive owned, scalars are inputs.
  for (uint32_t i = 0; i < f.params.size(); ++i) {
    hir::LocalId p = f.params[i];
    const hir::Local& l = prog.local(p);
    a.scopes.back().push_back(p);
    if (hasTokens(a, l.type)) {
      std::vector<std::pair<Loc, hir::TypeId>> locs;
      std::function<void(Loc, hir::TypeId)> walk = [&](Loc at, hir::TypeId t) {
        const hir::TypeTable& tt = prog.types;
        hir::TypeId x = tt.resolve(t);
        if (tt.kind(x) == hir::TyKind::Token) {
          locs.emplace_back(at, x);
          return;
        }
        for (uint32_t j = 0; tt.kind(x) == hir::TyKind::Tuple && j < tt.count(x); ++j) {
          Loc c;
          if (hasTokens(a, tt.elem(x, j)) && childLoc(at, j, c)) walk(c, tt.elem(x, j));
        }
      };
      walk(Loc{p.index, 0}, l.type);
      for (const auto& [loc, t] : locs) {
        Transfer tr;
        tr.origin = Origin::Param;
        tr.param = loc.path == 0 ? static_cast<int>(i) : -1;
        tr.name = l.name;
        tr.span = l.span;
        a.transfers.push_back(tr);
        TransferId k = static_cast<TransferId>(a.transfers.size() - 1);
        s.inflight[k] = terms.tru();
        s.tokens[loc][k] = terms.tru();
        if (loc.path == 0) a.paramCopy[static_cast<int>(i)] = k;
      }
    } else if (isRef(a, l.type)) {
      Place pl;
      pl.root = p;
      pl.text = l.name;
      RefVal r;
      r.alts.push_back(Alt{pl, terms.tru()});
      r.mut = prog.types.get(prog.types.resolve(l.type)).sub == 1;
      s.refs[p.index] = r;
      a.paramOf[p.index] = static_cast<int>(i);
    } else if (isMoveOnly(a, l.type)) {
      s.moved[p.index] = terms.fls();
    } else if (isScalar(a, l.type) && !a.facts.addressTaken.count(p.index)) {
      Term v = freshValue(a, l.type, l.name);
      s.scalars[p.index] = v;
      a.inputs.push_back(smt::Shown{l.name, v});
    }
  }
  beginSummary(a, s);
  walkBlock(a, s, f.body);
  a.scopes.pop_back();
  if (!a.exhausted) finishSummary(a, joinAll(terms, a.exits, s), Value{});
  // A function not decided gives its callers the summary that allows
  // anything: its walk stopped early, and what it saw is not all it does.
  size_t before = sink.diagnostics().size();
  report(a, sink);
  bool gaveUp = false;
  for (size_t i = before; i < sink.diagnostics().size(); ++i)
    gaveUp = gaveUp || std::string(sink.diagnostics()[i].code()) == "W6900";
  if (gaveUp) {
    makeTopSummary(prog, terms, summaries[index], f, index);
    if (options.unproved) options.unproved->push_back(index);
  }
  checkFootprint(a, sink);
}

}  // namespace

void checkOwnership(const hir::Program& prog, const base::SourceMap& sources, diag::Sink& sink, target::TargetKind kind,
                    const OwnershipOptions& options, OwnershipStats* stats) {
  smt::SolverLimits limits;
  limits.timeoutMs = options.timeoutMs;
  limits.rlimitPerFunction = options.rlimitPerFunction;
  limits.rlimitPerQuery = options.rlimitPerQuery;
  TermStore terms;
  smt::Solver solver(terms, limits);
  solver.setLog(options.proofLog);
  std::vector<Summary> summaries(prog.fns.size());
  std::vector<std::vector<uint32_t>> graph = callGraph(prog);
  for (const std::vector<uint32_t>& comp : components(graph)) {
    bool recursive = comp.size() > 1;
    for (uint32_t f : comp)
      for (uint32_t c : graph[f]) recursive = recursive || c == f;
    if (recursive)
      for (uint32_t f : comp) makeTopSummary(prog, terms, summaries[f], prog.fns[f], f);
    for (uint32_t f : comp) {
      const hir::Function& fn = prog.fns[f];
      if (fn.isExtern || !fn.body.valid()) continue;
      Summary top = summaries[f];
      analyse(prog, sources, sink, kind, terms, solver, summaries, f, options);
      if (!summaries[f].computed) summaries[f] = top.computed ? top : summaries[f];
    }
  }
  if (stats) {
    const smt::SolverStats& ss = solver.stats();
    stats->queries += ss.queries;
    stats->trivial += ss.trivial;
    stats->cacheHits += ss.cacheHits;
    stats->solverCalls += ss.solverCalls;
    stats->unknowns += ss.unknowns;
    stats->solverSeconds += ss.solverSeconds;
  }
}

}  // namespace vx::check
