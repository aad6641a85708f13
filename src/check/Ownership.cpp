// Entry of the ownership checker (docs/checker.md): functions are analysed
// callees first (the strongly connected components of the call graph in
// reverse topological order), so that every call finds its callee's
// summary; a recursive cycle starts from the top summary.
#include "check/Ownership.h"

#include <algorithm>
#include <functional>
#include <set>
#include <stdexcept>
#include <unordered_map>

#include "check/cir/Cir.h"
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

// The parameters' facts at the entry: tokens arrive in flight (the caller
// handed over the obligation; where their copies go is the caller's
// business), references are roots of their own, owned values arrive owned,
// scalars are inputs — each component of a tuple parameter as one passed
// alone.
void enterParams(Analysis& a, State& s) {
  TermStore& terms = a.terms;
  const hir::TypeTable& tt = a.prog.types;
  for (uint32_t i = 0; i < a.body.params.size(); ++i) {
    cir::LocalId p = a.body.params[i];
    const cir::Local& l = a.body.local(p);
    std::function<void(Loc, hir::TypeId)> walk = [&](Loc at, hir::TypeId ty) {
      hir::TypeId x = tt.resolve(ty);
      std::string name = locName(a, at);
      if (tt.kind(x) == hir::TyKind::Tuple) {
        for (uint32_t j = 0; j < tt.count(x); ++j) {
          Loc c;
          if (childLoc(at, j, c)) walk(c, tt.elem(x, j));
        }
        return;
      }
      if (tt.kind(x) == hir::TyKind::Token) {
        Transfer tr;
        tr.origin = Origin::Param;
        tr.param = static_cast<int>(i);
        tr.paramPath = at.path;
        tr.name = name;
        tr.span = l.span;
        a.transfers.push_back(tr);
        TransferId k = static_cast<TransferId>(a.transfers.size() - 1);
        s.inflight[k] = terms.tru();
        s.tokens[at][k] = terms.tru();
        a.paramCopy[ParamLoc{i, at.path}] = k;
      } else if (tt.kind(x) == hir::TyKind::Ref) {
        Place pl;
        pl.root = at;
        pl.text = name;
        RefVal r;
        r.alts.push_back(Alt{pl, terms.tru()});
        r.mut = tt.get(x).sub == 1;
        s.refs[at] = r;
        a.paramOf[at] = ParamLoc{i, at.path};
      } else if (isMoveOnly(a, x)) {
        s.moved[at] = terms.fls();
      } else if (isScalar(a, x) && !(at.path == 0 && a.facts.addressTaken.count(at.local))) {
        Term v = freshValue(a, x, name);
        s.scalars[at] = v;
        a.inputs.push_back(smt::Shown{name, v});
      }
    };
    walk(Loc{p.index, 0}, l.type);
  }
}

// Does a component of `t`, `level` tuples down already, sit deeper than a
// location's path holds (own/Model.h, childLoc: 4 levels) and hold what the
// state tracks (a token, a buffer, a reference)?
// `wide`: set when what is too deep is a component past the 255th.
bool nestsTooDeep(const Analysis& a, hir::TypeId t, unsigned level, bool* wide = nullptr) {
  const hir::TypeTable& tt = a.types();
  hir::TypeId x = tt.resolve(t);
  if (tt.kind(x) == hir::TyKind::Tuple) {
    for (uint32_t i = 0; i < tt.count(x); ++i)  // past component 254, a path has no index for it
      if (nestsTooDeep(a, tt.elem(x, i), i >= 255 ? kLocDepth + 1 : level + 1, wide)) {
        if (wide && i >= 255 && level < kLocDepth) *wide = true;
        return true;
      }
    return false;
  }
  return level > kLocDepth && (tt.kind(x) == hir::TyKind::Token || tt.kind(x) == hir::TyKind::Ref || isMoveOnly(a, x));
}

// Loops nested this deep in a function of integers alone are not walked.
constexpr int kDeepNest = 4;

// The deepest nest of `body`'s loops (1: a loop in no other).
int loopNestDepth(const cir::Body& body) {
  int deepest = 0;
  for (const cir::Loop& l : body.loops) {
    int d = 1;
    for (cir::LoopId p = l.parent; p.valid(); p = body.loop(p).parent) ++d;
    deepest = std::max(deepest, d);
  }
  return deepest;
}

// Whether every local of `body` holds integers, floats and bools (or tuples
// of them) and no statement calls anything.
bool onlyIntegers(const Analysis& a, const cir::Body& body) {
  const hir::TypeTable& tt = a.types();
  std::function<bool(hir::TypeId)> plain = [&](hir::TypeId t) {
    t = tt.resolve(t);
    switch (tt.kind(t)) {
      case hir::TyKind::Int:
      case hir::TyKind::Float:
      case hir::TyKind::Bool:
      case hir::TyKind::Void: return true;
      case hir::TyKind::Tuple:
        for (uint32_t i = 0; i < tt.count(t); ++i)
          if (!plain(tt.elem(t, i))) return false;
        return true;
      case hir::TyKind::Error:
      case hir::TyKind::Tensor:
      case hir::TyKind::Vec:
      case hir::TyKind::Ref:
      case hir::TyKind::Pinned:
      case hir::TyKind::Token:
      case hir::TyKind::Shape:
      case hir::TyKind::Dim:
      case hir::TyKind::Extent:
      case hir::TyKind::Mem:
      case hir::TyKind::Topo:
      case hir::TyKind::Var:
      case hir::TyKind::IntVar:
      case hir::TyKind::FloatVar: return false;
    }
    return false;
  };
  for (const cir::Local& l : body.locals)
    if (!plain(l.type)) return false;
  for (const cir::Block& b : body.blocks)
    for (const cir::Stmt& st : b.stmts)
      if (st.kind == cir::StmtKind::Assign && st.rv == cir::RvKind::Call) return false;
  return true;
}

void analyse(const hir::Program& prog, const base::SourceMap& sources, diag::Sink& sink, target::TargetKind target,
             TermStore& terms, smt::Solver& solver, std::vector<Summary>& summaries, uint32_t index,
             const OwnershipOptions& options, std::vector<TokenState>* states, const std::set<uint32_t>& cycle) {
  const hir::Function& f = prog.fns[index];
  cir::Body body = cir::lowerBody(prog, sources, hir::FnId{index});
  Analysis a(prog, sources, target, terms, solver, summaries, f, index, body);
  a.cancel = options.cancel;
  a.observe = states != nullptr;
  a.cycle = cycle;
  a.facts = computeFacts(prog, body);
  for (const cir::Local& l : body.locals)
    if (nestsTooDeep(a, l.type, 0, &a.tooWide)) {
      a.exhausted = true;
      a.tooDeep = l.span;
      break;
    }
  // Loops over integers alone: no token, buffer or reference, no call.
  // Nothing in it can race or leave a copy in flight, so nothing is proved;
  // what its walk gives is its result's value, for its callers. A nest of
  // kDeepNest loops or more is not walked (its fixpoint over the integers
  // took seconds, or ran out of the budget, for no verdict): its callers
  // get the summary that allows anything (its result an unknown value). A
  // shallower one is, and where that runs out of budget the same summary
  // stands in, without W6900.
  const bool integersOnly = !a.exhausted && !body.loops.empty() && onlyIntegers(a, body);
  if (integersOnly && loopNestDepth(body) >= kDeepNest) {
    makeTopSummary(prog, terms, summaries[index], f, index);
    if (states) *states = {};
    return;
  }
  terms.newEpoch();
  solver.resetFunctionBudget();
  a.termLimit = terms.size() + 2'000'000;
  a.deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(options.functionBudgetMs);
  State s;
  s.pc = terms.tru();
  enterParams(a, s);
  beginSummary(a, s);
  walkFunction(a, s);
  if (integersOnly && a.exhausted) {  // out of budget where nothing was to be proved: no W6900
    makeTopSummary(prog, terms, summaries[index], f, index);
    if (states) *states = {};
    return;
  }
  if (!a.exhausted) finishSummary(a);
  checkFootprint(a);
  // A function not decided gives its callers the summary that allows
  // anything: its walk stopped early, and what it saw is not all it does.
  size_t before = sink.diagnostics().size();
  report(a, sink);
  if (options.provedBlocks)
    options.provedBlocks->insert(options.provedBlocks->end(), a.provedBlocks.begin(), a.provedBlocks.end());
  bool gaveUp = false;
  for (size_t i = before; i < sink.diagnostics().size(); ++i)
    gaveUp = gaveUp || std::string(sink.diagnostics()[i].code()) == "W6900";
  if (gaveUp || !a.summary.computed) {
    uint64_t peak[4];
    for (unsigned m = 0; m < 4; ++m) peak[m] = a.summary.peak[m];
    makeTopSummary(prog, terms, summaries[index], f, index);
    for (unsigned m = 0; m < 4; ++m) summaries[index].peak[m] = peak[m];
    if (gaveUp && options.unproved) options.unproved->push_back(index);
  } else {
    summaries[index] = std::move(a.summary);
  }
  if (states) *states = observedStates(a);
}

// Two summaries of one function from two rounds of its recursive cycle:
// equal when the rounds computed the same facts (terms are hash-consed and
// fresh names restart per function, so the same walk gives the same terms).
bool sameSummary(const Summary& x, const Summary& y) {
  if (x.top != y.top || x.accesses.size() != y.accesses.size() || x.result.size() != y.result.size() ||
      x.completes.size() != y.completes.size() || !(x.returns == y.returns) || !(x.value == y.value))
    return false;
  for (size_t i = 0; i < x.accesses.size(); ++i) {
    const SummaryAccess &p = x.accesses[i], &q = y.accesses[i];
    if (!(p.place.guard == q.place.guard) || !(p.place.index == q.place.index) || !(p.place.row == q.place.row) ||
        !(p.place.col == q.place.col) || p.how != q.how || p.place.inner != q.place.inner ||
        !(p.place.root == q.place.root))
      return false;
  }
  for (size_t i = 0; i < x.completes.size(); ++i)
    if (!(x.completes[i].second == y.completes[i].second)) return false;
  for (size_t i = 0; i < x.result.size(); ++i) {
    if (x.result[i].copies.size() != y.result[i].copies.size()) return false;
    for (size_t j = 0; j < x.result[i].copies.size(); ++j)
      if (!(x.result[i].copies[j].guard == y.result[i].copies[j].guard)) return false;
  }
  for (unsigned m = 0; m < 4; ++m)
    if (x.peak[m] != y.peak[m]) return false;
  return true;
}

// Rounds of a recursive cycle before its summaries are taken as they are
// (each round's are sound; more rounds only sharpen them).
constexpr int kCycleRounds = 4;

// The members of `comp` when it is a recursive cycle (several functions, or
// one that calls itself); empty otherwise.
std::set<uint32_t> cycleOf(const std::vector<std::vector<uint32_t>>& graph, const std::vector<uint32_t>& comp) {
  bool recursive = comp.size() > 1;
  for (uint32_t f : comp)
    for (uint32_t c : graph[f]) recursive = recursive || c == f;
  return recursive ? std::set<uint32_t>(comp.begin(), comp.end()) : std::set<uint32_t>{};
}

// A recursive cycle to a fixpoint: from the top summary (anything a call
// could do), each round analyses every member with the last round's
// summaries; every round's are sound (each over-approximates what the calls
// do), and the rounds stop when nothing changes. The caller's last round
// reports.
void cycleRounds(const hir::Program& prog, const base::SourceMap& sources, target::TargetKind kind, TermStore& terms,
                 smt::Solver& solver, std::vector<Summary>& summaries, const std::vector<uint32_t>& comp,
                 const std::set<uint32_t>& cycle, const OwnershipOptions& options) {
  for (uint32_t f : comp) makeTopSummary(prog, terms, summaries[f], prog.fns[f], f);
  OwnershipOptions quiet = options;
  quiet.unproved = nullptr;
  quiet.proofLog = nullptr;
  quiet.tokenStates = nullptr;
  for (int round = 0; round < kCycleRounds; ++round) {
    std::vector<Summary> previous;
    for (uint32_t f : comp) previous.push_back(summaries[f]);
    for (uint32_t f : comp) {
      if (prog.fns[f].isExtern || !prog.fns[f].body.valid()) continue;
      diag::Sink scratch;
      analyse(prog, sources, scratch, kind, terms, solver, summaries, f, quiet, nullptr, cycle);
    }
    bool stable = true;
    for (size_t i = 0; i < comp.size(); ++i) stable = stable && sameSummary(previous[i], summaries[comp[i]]);
    if (stable) break;
  }
}

// ---- the cache of the language server ----

// A function, a callee or a const, and where it was when a result was
// computed: what a span in that result is rebased against.
struct CachedItem {
  std::string name;
  uint32_t file = 0, begin = 0, end = 0;
};

struct CacheEntry {
  std::string text;   // the function's item, attributes included
  uint64_t stamp = 0;
  std::vector<std::pair<std::string, uint64_t>> callees;  // name, stamp of the result used
  std::vector<CachedItem> closure;  // the function, its callees (transitively), the consts
  Summary summary;
  std::vector<diag::Diagnostic> diags;  // line markers unresolved
  bool unproved = false;
  bool observed = false;                // token states recorded
  std::shared_ptr<const std::vector<TokenState>> states;  // as analysed, at `anchor`
  uint32_t anchor = 0;
};

}  // namespace

struct OwnershipCache::Impl {
  std::unique_ptr<TermStore> terms = std::make_unique<TermStore>();
  // One Z3 context for all the checks (making one costs more than checking
  // a function); its cached answers are dropped at each check.
  std::unique_ptr<smt::Solver> solver;
  std::string context;  // target, options and the consts' text: any change empties the cache
  std::unordered_map<std::string, CacheEntry> entries;  // by function name
  uint64_t nextStamp = 1;
  void reset() {
    solver.reset();
    terms = std::make_unique<TermStore>();
    entries.clear();
  }
};

OwnershipCache::OwnershipCache() : impl(std::make_unique<Impl>()) {}
OwnershipCache::~OwnershipCache() = default;
void OwnershipCache::releaseSolver() { impl->solver.reset(); }

namespace {

// Term nodes a cache keeps before it starts again (about 100 bytes each).
constexpr size_t kCacheTermLimit = 8'000'000;

std::string_view itemText(const base::SourceMap& sources, base::Span s) {
  std::string_view t = sources.file(s.file).text();
  return s.end <= t.size() && s.begin <= s.end ? t.substr(s.begin, s.end - s.begin) : std::string_view{};
}

// Where the items of a result are now: name -> span.
using Places = std::unordered_map<std::string, base::Span>;

// Moves `sp` with the item of `old` that contained it.
void rebase(base::Span& sp, const std::vector<CachedItem>& old, const Places& now) {
  if (!sp.valid()) return;
  for (const CachedItem& it : old) {
    if (it.file != sp.file.index || sp.begin < it.begin || sp.begin > it.end) continue;
    auto n = now.find(it.name);
    if (n == now.end()) return;
    int64_t delta = static_cast<int64_t>(n->second.begin) - static_cast<int64_t>(it.begin);
    sp.begin = static_cast<uint32_t>(sp.begin + delta);
    sp.end = static_cast<uint32_t>(sp.end + delta);
    return;
  }
}

// Replaces each line marker (own::lineMarker) by the line number the
// offset has after `move`.
// The diagnostic as it is reported: spans moved, line markers resolved.
diag::Diagnostic placed(diag::Diagnostic d, const base::SourceMap& sources,
                        const std::function<void(base::Span&)>& move) {
  auto lineOf = [&](uint32_t file, uint32_t offset) {
    base::Span sp{base::FileId{file}, offset, offset};
    move(sp);
    return sources.file(sp.file).lineCol(sp.begin).line;
  };
  auto text = [&](std::string& t) { t = resolveLineMarkers(std::move(t), lineOf); };
  text(d.message);
  for (diag::Label& l : d.labels) {
    move(l.span);
    text(l.text);
  }
  for (std::string& n : d.notes) text(n);
  for (std::string& h : d.helps) text(h);
  for (diag::Suggestion& sg : d.suggestions) {
    move(sg.span);
    text(sg.message);
    for (diag::SuggestionPart& p : sg.more) move(p.span);
  }
  move(d.attrSpan);
  move(d.attrWarningsSpan);
  return d;
}

void placeSummary(Summary& sum, const std::function<void(base::Span&)>& move) {
  for (SummaryAccess& acc : sum.accesses) move(acc.at);
  for (SummaryToken& tok : sum.result)
    for (SummaryCopy& c : tok.copies) move(c.span);
}

}  // namespace

std::string resolveLineMarkers(std::string text, const std::function<uint32_t(uint32_t, uint32_t)>& lineOf) {
  size_t at = 0;
  while ((at = text.find('\x01', at)) != std::string::npos) {
    size_t colon = text.find(':', at), close = text.find('\x02', at);
    if (colon == std::string::npos || close == std::string::npos || colon > close) break;
    auto file = static_cast<uint32_t>(std::stoul(text.substr(at + 1, colon - at - 1)));
    auto offset = static_cast<uint32_t>(std::stoul(text.substr(colon + 1, close - colon - 1)));
    std::string line = std::to_string(lineOf(file, offset));
    text.replace(at, close + 1 - at, line);
    at += line.size();
  }
  return text;
}

std::string printCheckerIr(const hir::Program& prog, const base::SourceMap& sources) {
  std::string out;
  for (uint32_t f = 0; f < prog.fns.size(); ++f) {
    const hir::Function& fn = prog.fns[f];
    if (fn.isExtern || !fn.body.valid() || fn.fromPrelude) continue;
    if (!out.empty()) out += "\n";
    out += cir::printBody(prog, cir::lowerBody(prog, sources, hir::FnId{f}));
  }
  return out;
}

namespace {

smt::SolverLimits limitsOf(const OwnershipOptions& options) {
  smt::SolverLimits limits;
  limits.timeoutMs = options.timeoutMs;
  limits.rlimitPerFunction = options.rlimitPerFunction;
  limits.rlimitPerQuery = options.rlimitPerQuery;
  limits.cancel = options.cancel;
  return limits;
}

void addStats(OwnershipStats* stats, const smt::Solver& solver, uint64_t analysed, uint64_t reused) {
  if (!stats) return;
  const smt::SolverStats& ss = solver.stats();
  stats->queries += ss.queries;
  stats->trivial += ss.trivial;
  stats->cacheHits += ss.cacheHits;
  stats->solverCalls += ss.solverCalls;
  stats->unknowns += ss.unknowns;
  stats->solverSeconds += ss.solverSeconds;
  stats->analysed += analysed;
  stats->reused += reused;
}

}  // namespace

OwnershipSplit splitOwnership(const hir::Program& prog, const std::vector<double>& shares) {
  OwnershipSplit split;
  split.graph = callGraph(prog);
  split.comps = components(split.graph);
  // A function weighs the length of its text: the walk's cost follows it.
  std::vector<double> weight(split.comps.size(), 0);
  double total = 0;
  for (size_t i = 0; i < split.comps.size(); ++i) {
    for (uint32_t f : split.comps[i]) {
      const hir::Function& fn = prog.fns[f];
      if (!fn.isExtern && fn.body.valid()) weight[i] += fn.span.end - fn.span.begin;
    }
    total += weight[i];
  }
  double shareSum = 0;
  for (double s : shares) shareSum += s;
  split.bounds.push_back(0);
  double reached = 0, goal = 0;
  size_t i = 0;
  for (size_t p = 0; p + 1 < shares.size(); ++p) {
    goal += shareSum > 0 ? total * shares[p] / shareSum : 0;
    while (i < split.comps.size() && reached + weight[i] / 2 < goal) reached += weight[i++];
    split.bounds.push_back(i);
  }
  split.bounds.push_back(split.comps.size());
  return split;
}

void checkOwnershipPart(const OwnershipSplit& split, size_t part, const hir::Program& prog,
                        const base::SourceMap& sources, diag::Sink& sink, target::TargetKind kind,
                        const OwnershipOptions& options, OwnershipStats* stats) {
  if (options.cache || options.tokenStates || options.defer || options.proofLog)
    throw std::logic_error("checkOwnershipPart: the cache, token states, deferral and proof logs need checkOwnership");
  size_t begin = split.bounds[part], end = split.bounds[part + 1];
  TermStore terms;
  smt::Solver solver(terms, limitsOf(options), options.prepared);
  std::vector<Summary> summaries(prog.fns.size());
  // The callees of this part's functions that earlier parts check, and
  // theirs: their summaries are computed here again, without reporting.
  std::vector<size_t> compOf(prog.fns.size(), 0);
  for (size_t i = 0; i < split.comps.size(); ++i)
    for (uint32_t f : split.comps[i]) compOf[f] = i;
  std::vector<bool> needed(split.comps.size(), false);
  std::vector<uint32_t> work;
  for (size_t i = begin; i < end; ++i) work.insert(work.end(), split.comps[i].begin(), split.comps[i].end());
  std::vector<bool> seen(prog.fns.size(), false);
  while (!work.empty()) {
    uint32_t f = work.back();
    work.pop_back();
    for (uint32_t c : split.graph[f]) {
      if (compOf[c] >= begin || seen[c]) continue;
      seen[c] = true;
      needed[compOf[c]] = true;
      work.push_back(c);
    }
  }
  OwnershipOptions quiet = options;
  quiet.unproved = nullptr;
  quiet.provedBlocks = nullptr;
  uint64_t analysed = 0;
  for (size_t i = 0; i < end; ++i) {
    if (i < begin && !needed[i]) continue;
    const std::vector<uint32_t>& comp = split.comps[i];
    bool reports = i >= begin;
    std::set<uint32_t> cycle = cycleOf(split.graph, comp);
    if (!cycle.empty()) cycleRounds(prog, sources, kind, terms, solver, summaries, comp, cycle, options);
    for (uint32_t f : comp) {
      const hir::Function& fn = prog.fns[f];
      if (fn.isExtern || !fn.body.valid()) continue;
      if (reports && options.onAnalyse) options.onAnalyse(fn.name);
      analysed += reports;
      Summary top = summaries[f];
      diag::Sink local;
      analyse(prog, sources, local, kind, terms, solver, summaries, f, reports ? options : quiet, nullptr, cycle);
      if (!summaries[f].computed) summaries[f] = top.computed ? top : summaries[f];
      if (!reports) continue;
      auto same = [](base::Span&) {};
      for (const diag::Diagnostic& d : local.diagnostics()) sink.emit(placed(d, sources, same));
    }
  }
  addStats(stats, solver, analysed, 0);
}

void checkOwnership(const hir::Program& prog, const base::SourceMap& sources, diag::Sink& sink, target::TargetKind kind,
                    const OwnershipOptions& options, OwnershipStats* stats) {
  smt::SolverLimits limits = limitsOf(options);
  OwnershipCache::Impl* cache = options.cache ? options.cache->impl.get() : nullptr;
  // What every cached result depends on besides the functions themselves.
  Places now;
  std::vector<CachedItem> constItems;
  if (cache) {
    std::string context = std::string(target::info(kind).name) + "\n" + std::to_string(options.rlimitPerQuery) + " " +
                          std::to_string(options.rlimitPerFunction) + " " + std::to_string(options.timeoutMs) + " " +
                          std::to_string(options.functionBudgetMs) + "\n";
    for (const hir::Const& c : prog.consts) {
      // `N: usize = 2` (the const's span is its name's).
      base::Span whole = c.span;
      base::Span value = c.value.valid() ? prog.expr(c.value).span : base::Span{};
      if (value.valid() && value.file == whole.file && value.end > whole.end) whole.end = value.end;
      context += itemText(sources, whole);
      context += "\n";
      now["const " + c.name] = whole;
      constItems.push_back(CachedItem{"const " + c.name, whole.file.index, whole.begin, whole.end});
    }
    if (cache->context != context || cache->terms->size() > kCacheTermLimit) {
      cache->reset();
      cache->context = std::move(context);
    }
    for (const hir::Function& fn : prog.fns)
      if (!fn.isExtern && fn.body.valid()) now[fn.name] = fn.span;
  }
  TermStore localTerms;
  TermStore& terms = cache ? *cache->terms : localTerms;
  std::unique_ptr<smt::Solver> localSolver;
  if (cache && cache->solver)
    cache->solver->newRun(limits);
  else if (cache)
    cache->solver = std::make_unique<smt::Solver>(terms, limits);
  else
    localSolver = std::make_unique<smt::Solver>(terms, limits);
  smt::Solver& solver = cache ? *cache->solver : *localSolver;
  solver.setLog(options.proofLog);
  std::vector<Summary> summaries(prog.fns.size());
  std::vector<std::vector<uint32_t>> graph = callGraph(prog);
  std::vector<uint64_t> stamps(prog.fns.size(), 0);
  std::vector<bool> postponed(prog.fns.size(), false);
  uint64_t localStamp = 1;
  auto fresh = [&] { return cache ? cache->nextStamp++ : localStamp++; };
  uint64_t analysed = 0, reused = 0;
  for (const std::vector<uint32_t>& comp : components(graph)) {
    std::set<uint32_t> cycle = cycleOf(graph, comp);
    bool recursive = !cycle.empty();
    if (recursive) cycleRounds(prog, sources, kind, terms, solver, summaries, comp, cycle, options);
    for (uint32_t f : comp) {
      const hir::Function& fn = prog.fns[f];
      if (fn.isExtern || !fn.body.valid()) continue;
      std::string_view text = itemText(sources, fn.span);
      // A result is reused when the function and every callee's result
      // are the ones it was computed from (recursive cycles: never).
      if (cache && !recursive) {
        auto it = cache->entries.find(fn.name);
        bool same = it != cache->entries.end() && it->second.text == text &&
                    it->second.callees.size() == graph[f].size() &&
                    (it->second.observed || !options.tokenStates);
        for (size_t i = 0; same && i < graph[f].size(); ++i)
          same = it->second.callees[i].first == prog.fns[graph[f][i]].name &&
                 it->second.callees[i].second == stamps[graph[f][i]];
        if (same) {
          const CacheEntry& e = it->second;
          auto move = [&](base::Span& sp) { rebase(sp, e.closure, now); };
          summaries[f] = e.summary;
          placeSummary(summaries[f], move);
          for (const diag::Diagnostic& d : e.diags) sink.emit(placed(d, sources, move));
          if (options.tokenStates) options.tokenStates->push_back(FunctionStates{e.states, e.anchor, fn.span});
          if (e.unproved && options.unproved) options.unproved->push_back(f);
          stamps[f] = e.stamp;
          ++reused;
          continue;
        }
      }
      bool calleePostponed = false;
      for (uint32_t c : graph[f]) calleePostponed = calleePostponed || postponed[c];
      if (options.defer && (calleePostponed || options.defer(fn.name))) {
        postponed[f] = true;
        if (options.deferred) options.deferred->push_back(fn.name);
        continue;
      }
      if (options.onAnalyse) options.onAnalyse(fn.name);
      ++analysed;
      Summary top = summaries[f];
      diag::Sink local;
      size_t unprovedBefore = options.unproved ? options.unproved->size() : 0;
      std::vector<TokenState> states;
      analyse(prog, sources, local, kind, terms, solver, summaries, f, options,
              options.tokenStates ? &states : nullptr, cycle);
      if (!summaries[f].computed) summaries[f] = top.computed ? top : summaries[f];
      auto same = [](base::Span&) {};
      for (const diag::Diagnostic& d : local.diagnostics()) sink.emit(placed(d, sources, same));
      auto shared = std::make_shared<const std::vector<TokenState>>(std::move(states));
      if (options.tokenStates) options.tokenStates->push_back(FunctionStates{shared, fn.span.begin, fn.span});
      stamps[f] = fresh();
      if (cache && !recursive) {
        CacheEntry e;
        e.text = std::string(text);
        e.stamp = stamps[f];
        e.closure.push_back(CachedItem{fn.name, fn.span.file.index, fn.span.begin, fn.span.end});
        for (uint32_t c : graph[f]) {
          e.callees.emplace_back(prog.fns[c].name, stamps[c]);
          auto ce = cache->entries.find(prog.fns[c].name);
          const hir::Function& cf = prog.fns[c];
          if (ce != cache->entries.end() && ce->second.stamp == stamps[c])
            e.closure.insert(e.closure.end(), ce->second.closure.begin(), ce->second.closure.end());
          else
            e.closure.push_back(CachedItem{cf.name, cf.span.file.index, cf.span.begin, cf.span.end});
        }
        e.closure.insert(e.closure.end(), constItems.begin(), constItems.end());
        std::sort(e.closure.begin(), e.closure.end(),
                  [](const CachedItem& x, const CachedItem& y) { return x.name < y.name; });
        e.closure.erase(std::unique(e.closure.begin(), e.closure.end(),
                                    [](const CachedItem& x, const CachedItem& y) { return x.name == y.name; }),
                        e.closure.end());
        e.summary = summaries[f];
        e.diags = local.diagnostics();
        e.unproved = options.unproved && options.unproved->size() > unprovedBefore;
        e.observed = options.tokenStates != nullptr;
        e.states = shared;
        e.anchor = fn.span.begin;
        cache->entries[fn.name] = std::move(e);
      }
    }
  }
  addStats(stats, solver, analysed, reused);
}

}  // namespace vx::check
