// Loops. The state at the loop head is computed for a symbolic iteration:
// on the first iteration it is the state before the loop; afterwards it is
// the state at the end of the body one iteration earlier, with the induction
// variable shifted (`i := i - 1`). A transfer started in iteration i - 1
// (an "aged" transfer) keeps its slot index in terms of the current `i`,
// which is how the checker knows that the copy issued for slot `(i + 1) % 2`
// lands in slot `i % 2` one iteration later. The head state is iterated to a
// fixpoint (silently), then the body is walked once more, reporting.
#include <functional>

#include "check/OwnState.h"

namespace vx::check::own {

using hir::ExprKind;
using hir::StmtKind;

namespace {

constexpr uint32_t kMaxAge = 4;
constexpr int kMaxPasses = 8;

struct Loop {
  Term iter, lo, hi;
  uint32_t firstTransfer;  // transfers with larger ids were started inside the loop
  std::vector<Term> havocs, prevHavocs;  // scalars assigned in the body, now and one iteration earlier
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> aged;  // (site, age) -> transfer id
};

void collectAssigned(const hir::Program& p, hir::BlockId b, std::vector<hir::LocalId>& out);

void collectAssignedStmt(const hir::Program& p, hir::StmtId id, std::vector<hir::LocalId>& out) {
  const hir::Stmt& st = p.stmt(id);
  switch (st.kind) {
    case StmtKind::Assign: {
      const hir::Expr& place = p.expr(st.a);
      if (place.kind == ExprKind::Local) out.push_back(place.local);
      break;
    }
    case StmtKind::For:
    case StmtKind::While:
    case StmtKind::Block: collectAssigned(p, st.body, out); break;
    case StmtKind::If:
      collectAssigned(p, st.body, out);
      if (st.elseStmt.valid()) collectAssignedStmt(p, st.elseStmt, out);
      break;
    default: break;
  }
}

void collectAssigned(const hir::Program& p, hir::BlockId b, std::vector<hir::LocalId>& out) {
  const hir::Block& block = p.block(b);
  for (uint32_t i = 0; i < block.stmts.count; ++i) collectAssignedStmt(p, hir::StmtId{p.listAt(block.stmts, i)}, out);
}

// Maps a transfer at the end of the body to its id at the next loop head.
uint32_t agedId(Walk& w, Loop& loop, uint32_t k, bool& internal) {
  const Transfer& t = w.transfers[k];
  bool ours = k >= loop.firstTransfer;
  internal = ours;
  if (!ours) return k;
  uint32_t age = std::min(t.age + 1, kMaxAge);
  auto key = std::make_pair(t.site.index, age);
  auto it = loop.aged.find(key);
  if (it != loop.aged.end()) return it->second;
  Transfer copy = t;
  copy.age = age;
  std::vector<Term> from{loop.iter}, to{w.terms.mkSub(loop.iter, w.terms.intConst(1))};
  from.insert(from.end(), loop.havocs.begin(), loop.havocs.end());
  to.insert(to.end(), loop.prevHavocs.begin(), loop.prevHavocs.end());
  auto shift = [&](std::optional<Region>& r) {
    if (!r || r->whole) return;
    // Ages past the limit are summarised: the slot is unknown (may alias any).
    r->index = t.age + 1 > kMaxAge ? w.terms.fresh("$slot", smt::Sort::Int) : w.terms.substitute(r->index, from, to);
  };
  shift(copy.dst);
  shift(copy.src);
  w.transfers.push_back(copy);
  uint32_t id = static_cast<uint32_t>(w.transfers.size() - 1);
  loop.aged[key] = id;
  return id;
}

// The head state for iteration `iter` from the state before the loop and
// the state at the end of the body.
State generalize(Walk& w, Loop& loop, const State& before, const State& head0, const State& end) {
  smt::TermStore& t = w.terms;
  std::vector<Term> from{loop.iter}, to{t.mkSub(loop.iter, t.intConst(1))};
  from.insert(from.end(), loop.havocs.begin(), loop.havocs.end());
  to.insert(to.end(), loop.prevHavocs.begin(), loop.prevHavocs.end());
  auto prev = [&](Term x) { return t.substitute(x, from, to); };
  Term first = t.mkEq(loop.iter, loop.lo);
  Term later = t.mkNot(first);
  State h = head0;
  h.inflight.clear();
  auto flow = [&](const std::map<uint32_t, Term>& atEnd, const std::map<uint32_t, Term>& atEntry) {
    std::map<uint32_t, Term> out;
    for (const auto& [k, f] : atEntry) out[k] = t.mkIte(first, f, t.fls());
    for (const auto& [k, f] : atEnd) {
      bool internal = false;
      uint32_t nk = agedId(w, loop, k, internal);
      Term contribution = t.mkAnd(later, prev(f));
      if (internal) {
        out[nk] = t.mkOr(get(out, nk, t.fls()), contribution);
      } else {
        out[nk] = t.mkIte(first, get(atEntry, k, t.fls()), prev(f));
      }
    }
    // Entry facts not mentioned at the end are false there.
    for (const auto& [k, f] : atEntry)
      if (!atEnd.count(k)) out[k] = t.mkIte(first, f, t.fls());
    return out;
  };
  h.inflight = flow(end.inflight, before.inflight);
  h.tokens.clear();
  for (const auto& [l, v] : before.tokens) {
    auto e = end.tokens.find(l);
    TokenVal empty;
    h.tokens[l].holds = flow(e == end.tokens.end() ? empty.holds : e->second.holds, v.holds);
  }
  for (const auto& [l, f] : before.moved) h.moved[l] = t.mkIte(first, f, prev(get(end.moved, l, t.fls())));
  h.consumeSites = before.consumeSites;
  for (const auto& [k, sites] : end.consumeSites) {
    bool internal = false;
    uint32_t nk = agedId(w, loop, k, internal);
    for (const auto& [sp, g] : sites) h.consumeSites[nk].emplace_back(sp, t.mkAnd(later, prev(g)));
  }
  h.moveSites = before.moveSites;
  for (const auto& [l, sites] : end.moveSites)
    for (const auto& [sp, g] : sites) h.moveSites[l].emplace_back(sp, t.mkAnd(later, prev(g)));
  return h;
}

bool sameFacts(Walk& w, const State& a, const State& b) {
  smt::TermStore& t = w.terms;
  auto differ = [&](Term x, Term y) {
    if (x == y) return false;
    return possible(w, a, t.mkNot(t.mkEq(x, y))) != smt::Verdict::Unsat;
  };
  auto mapsDiffer = [&](const std::map<uint32_t, Term>& x, const std::map<uint32_t, Term>& y) {
    for (const auto& [k, f] : x)
      if (differ(f, get(y, k, t.fls()))) return true;
    for (const auto& [k, f] : y)
      if (!x.count(k) && differ(t.fls(), f)) return true;
    return false;
  };
  if (mapsDiffer(a.inflight, b.inflight) || mapsDiffer(a.moved, b.moved)) return false;
  for (const auto& [l, v] : a.tokens) {
    auto o = b.tokens.find(l);
    if (o == b.tokens.end() || mapsDiffer(v.holds, o->second.holds)) return false;
  }
  return true;
}

// Replaces every fact that did not settle with an unknown on the iterations
// after the first (the first is exact): sound, less precise.
State widen(Walk& w, const Loop& loop, const State& a, const State& b) {
  smt::TermStore& t = w.terms;
  State out = b;
  Term first = t.mkEq(loop.iter, loop.lo);
  auto widenMap = [&](const std::map<uint32_t, Term>& x, std::map<uint32_t, Term>& y) {
    for (auto& [k, f] : y)
      if (f != get(x, k, t.fls())) {
        // On the first iteration the fact is its value before the loop: the
        // `first` branch of the generalised formula.
        Term atFirst = t.substitute(f, {loop.iter}, {loop.lo});
        f = t.mkIte(first, atFirst, t.fresh("$w", smt::Sort::Bool));
      }
  };
  widenMap(a.inflight, out.inflight);
  widenMap(a.moved, out.moved);
  for (auto& [l, v] : out.tokens) {
    auto o = a.tokens.find(l);
    TokenVal empty;
    widenMap(o == a.tokens.end() ? empty.holds : o->second.holds, v.holds);
  }
  return out;
}

// Walks the body once from `head`; returns the state at its end (merged
// with `continue`s) and collects `break`s.
State walkBody(Walk& w, const State& head, hir::BlockId body, std::vector<State>& breaks,
               const std::function<void(State&)>& enter) {
  Exits exits;
  exits.level = w.blockLocals.size();
  w.loops.push_back(&exits);
  State s = head;
  enter(s);
  if (!w.terms.isFalse(s.pc)) walkBlock(w, s, body);
  w.loops.pop_back();
  breaks = exits.breaks;
  std::vector<State> ends = exits.continues;
  ends.push_back(s);
  return mergeAll(w, ends, head);
}

void runLoop(Walk& w, State& s, Loop& loop, Term inLoop, hir::BlockId body,
             const std::function<void(State&)>& enter, Term exitLast, Term zeroTrips) {
  smt::TermStore& t = w.terms;
  std::vector<hir::LocalId> assigned;
  collectAssigned(w.prog, body, assigned);
  State before = s;
  State head0 = s;
  head0.pc = t.mkAnd(s.pc, inLoop);
  for (hir::LocalId l : assigned) {
    hir::TyKind k = w.types().kind(w.types().resolve(w.prog.local(l).type));
    if ((k != hir::TyKind::Int && k != hir::TyKind::Bool) || !s.scalars.count(l.index)) continue;
    Term now = freshFor(w, l);
    Term earlier = t.fresh("$prev_" + localName(w, l), k == hir::TyKind::Bool ? smt::Sort::Bool : smt::Sort::Int);
    loop.havocs.push_back(now);
    loop.prevHavocs.push_back(earlier);
    head0.scalars[l.index] = now;
  }
  std::vector<State> breaks;
  State head = head0;
  bool converged = false;
  ++w.silent;
  // Inside another loop's fixpoint, fewer passes: the outer loop's final,
  // reporting walk runs this loop again with the full number.
  const int passes = w.silent > 1 ? 3 : kMaxPasses;
  for (int pass = 0; pass < passes && !converged && !w.overBudget(); ++pass) {
    State end = walkBody(w, head, body, breaks, enter);
    if (w.overBudget()) break;
    State next = generalize(w, loop, before, head0, end);
    converged = sameFacts(w, head, next);
    head = converged ? head : (pass + 1 == passes ? widen(w, loop, head, next) : next);
  }
  --w.silent;
  if (w.overBudget()) return;
  State end = walkBody(w, head, body, breaks, enter);
  // After the loop: no iteration ran, or the last one did, or a `break`.
  State zero = before;
  zero.pc = t.mkAnd(before.pc, zeroTrips);
  State last = end;
  std::vector<Term> from{loop.iter};
  std::vector<Term> to{exitLast};
  auto subst = [&](Term x) { return t.substitute(x, from, to); };
  last.pc = subst(end.pc);
  for (auto& [k, f] : last.inflight) f = subst(f);
  for (auto& [k, f] : last.moved) f = subst(f);
  for (auto& [l, v] : last.tokens)
    for (auto& [k, f] : v.holds) f = subst(f);
  std::vector<State> exits = breaks;
  exits.push_back(zero);
  exits.push_back(last);
  s = mergeAll(w, exits, before);
  // Scalars assigned in the loop are unknown after it.
  for (hir::LocalId l : assigned)
    if (s.scalars.count(l.index)) s.scalars[l.index] = freshFor(w, l);
}

}  // namespace

void walkFor(Walk& w, State& s, const hir::Stmt& st) {
  smt::TermStore& t = w.terms;
  walkExpr(w, s, st.a);
  walkExpr(w, s, st.b);
  Loop loop;
  loop.lo = valueOf(w, s, st.a);
  loop.hi = valueOf(w, s, st.b);
  loop.iter = freshFor(w, st.var);
  loop.firstTransfer = static_cast<uint32_t>(w.transfers.size());
  Term inLoop = t.mkAnd(t.mkLe(loop.lo, loop.iter), t.mkLt(loop.iter, loop.hi));
  hir::LocalId var = st.var;
  Term iter = loop.iter;
  auto enter = [&](State& b) { b.scalars[var.index] = iter; };
  runLoop(w, s, loop, inLoop, st.body, enter, t.mkSub(loop.hi, t.intConst(1)), t.mkLe(loop.hi, loop.lo));
  s.scalars.erase(var.index);
}

void walkWhile(Walk& w, State& s, const hir::Stmt& st) {
  smt::TermStore& t = w.terms;
  walkExpr(w, s, st.a);
  Term cond0 = valueOf(w, s, st.a);
  Loop loop;
  loop.lo = t.intConst(0);
  loop.hi = t.fresh("$trips", smt::Sort::Int);
  loop.iter = t.fresh("$iter", smt::Sort::Int);
  loop.firstTransfer = static_cast<uint32_t>(w.transfers.size());
  Term inLoop = t.mkAnd(t.mkLe(loop.lo, loop.iter), t.mkLt(loop.iter, loop.hi));
  hir::ExprId cond = st.a;
  // Each iteration starts only where the condition holds.
  auto enter = [&](State& b) {
    walkExpr(w, b, cond);
    b.pc = t.mkAnd(b.pc, valueOf(w, b, cond));
  };
  runLoop(w, s, loop, inLoop, st.body, enter, t.mkSub(loop.hi, t.intConst(1)), t.mkNot(cond0));
}

}  // namespace vx::check::own
