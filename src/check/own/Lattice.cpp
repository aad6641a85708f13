// The lattice of states: the product of the fact components of
// Components.h. Join (exact, by the branch conditions), the unreachable
// state, the order and forgetting apply each component's operation.
// Widening is in Loops.cpp, where the facts a loop changes are known.
#include "check/own/Components.h"
#include <unordered_set>
#include <vector>

namespace vx::check::own {

bool childLoc(Loc l, uint32_t i, Loc& out) {
  unsigned depth = 0;
  while (depth < kLocDepth && ((l.path >> (8 * depth)) & 0xff) != 0) ++depth;
  if (depth == kLocDepth || i >= 255) return false;
  out = l;
  out.path |= (i + 1) << (8 * depth);
  return true;
}

bool within(Loc inner, Loc outer) {
  if (inner.local != outer.local) return false;
  for (unsigned d = 0; d < kLocDepth; ++d) {
    uint32_t o = (outer.path >> (8 * d)) & 0xff;
    if (o == 0) return true;
    if (((inner.path >> (8 * d)) & 0xff) != o) return false;
  }
  return true;
}

Term lookup(const base::FlatMap<Loc, Term>& m, Loc k, Term dflt) {
  auto it = m.find(k);
  return it == m.end() ? dflt : it->second;
}

Term lookup(const base::FlatMap<TransferId, Term>& m, TransferId k, Term dflt) {
  auto it = m.find(k);
  return it == m.end() ? dflt : it->second;
}

Term live(TermStore& t, const State& s, const Holds& h) {
  std::vector<Term> parts;
  for (const auto& [k, g] : h) {
    auto it = s.inflight.find(k);
    if (it != s.inflight.end()) parts.push_back(t.mkAnd(g, it->second));
  }
  return t.mkOr(parts);
}

namespace {

template <typename V>
void eraseLocal(base::FlatMap<Loc, V>& m, uint32_t local) {
  for (auto it = m.begin(); it != m.end();) it = it->first.local == local ? m.erase(it) : std::next(it);
}

}  // namespace

// ---- the components ----

ScalarFacts::Data ScalarFacts::join(TermStore& t, Term c, const Data& a, const Data& b) {
  // A location known on one side only was bound inside that side: it is
  // out of scope after the join.
  Data out;
  for (const auto& [k, v] : a) {
    auto it = b.find(k);
    if (it != b.end()) out[k] = t.mkIte(c, v, it->second);
  }
  return out;
}

void ScalarFacts::leq(TermStore& t, const Data& a, const Data& b, std::vector<Term>& out) {
  for (const auto& [k, v] : a) {
    auto it = b.find(k);
    if (it != b.end()) out.push_back(t.mkEq(v, it->second));
  }
}

void ScalarFacts::widen(Data& d, const std::vector<Loc>& changed, const std::function<Term(Loc)>& fresh) {
  for (Loc l : changed)
    if (d.count(l)) d[l] = fresh(l);
}

void ScalarFacts::forget(Data& d, uint32_t local) { eraseLocal(d, local); }

void MovedFacts::forget(Data& d, uint32_t local) { eraseLocal(d, local); }

TokenFacts::Data TokenFacts::join(TermStore& t, Term c, const Data& a, const Data& b) {
  Data out;
  for (const auto& [l, h] : a) {
    auto it = b.find(l);
    out[l] = MayFacts<TransferId>::join(t, c, h, it == b.end() ? Holds{} : it->second);
  }
  for (const auto& [l, h] : b)
    if (!a.count(l)) out[l] = MayFacts<TransferId>::join(t, c, Holds{}, h);
  return out;
}

void TokenFacts::leq(TermStore& t, const Data& a, const Data& b, std::vector<Term>& out) {
  for (const auto& [l, h] : a) {
    auto it = b.find(l);
    MayFacts<TransferId>::leq(t, h, it == b.end() ? Holds{} : it->second, out);
  }
}

void TokenFacts::forget(Data& d, uint32_t local) { eraseLocal(d, local); }

namespace {

RefVal joinRef(TermStore& t, Term c, const RefVal& a, const RefVal& b) {
  RefVal out;
  out.mut = a.mut || b.mut;
  out.unknown = a.unknown || b.unknown;
  // The same place on both sides keeps one entry: ite(c, guard_a, guard_b).
  std::vector<bool> used(b.alts.size(), false);
  for (const Alt& x : a.alts) {
    Term other = t.fls();
    for (size_t j = 0; j < b.alts.size(); ++j)
      if (!used[j] && samePlace(x.place, b.alts[j].place)) {
        other = b.alts[j].guard;
        used[j] = true;
        break;
      }
    out.alts.push_back(Alt{x.place, t.mkIte(c, x.guard, other)});
  }
  for (size_t j = 0; j < b.alts.size(); ++j)
    if (!used[j]) out.alts.push_back(Alt{b.alts[j].place, t.mkAnd(t.mkNot(c), b.alts[j].guard)});
  return out;
}

}  // namespace

RefFacts::Data RefFacts::join(TermStore& t, Term c, const Data& a, const Data& b) {
  Data out;
  for (const auto& [k, v] : a) {
    auto it = b.find(k);
    if (it != b.end()) out[k] = joinRef(t, c, v, it->second);
  }
  return out;
}

void RefFacts::leq(TermStore& t, const Data& a, const Data& b, std::vector<Term>& out) {
  for (const auto& [k, ra] : a) {
    auto it = b.find(k);
    if (it == b.end()) continue;
    const RefVal& rb = it->second;
    if (rb.unknown) continue;
    if (ra.unknown) {
      out.push_back(t.fls());
      continue;
    }
    for (const Alt& x : ra.alts) {
      std::vector<Term> any;
      for (const Alt& y : rb.alts) {
        Term within = placeWithin(t, x.place, y.place);
        if (!t.isFalse(within)) any.push_back(t.mkAnd(y.guard, within));
      }
      out.push_back(t.mkImplies(x.guard, t.mkOr(any)));
    }
  }
}

void RefFacts::widen(Data& d, const std::vector<Loc>& changed,
                     const std::function<bool(Loc, const RefVal& before, RefVal& widened)>& bounded) {
  for (Loc r : changed) {
    RefVal v;
    auto it = d.find(r);
    if (it != d.end() && bounded && bounded(r, it->second, v)) {
      d[r] = v;
      continue;
    }
    v = RefVal{};
    v.unknown = true;
    if (it != d.end()) v.mut = it->second.mut;
    d[r] = v;
  }
}

void RefFacts::forget(Data& d, uint32_t local) { eraseLocal(d, local); }

namespace {

template <typename K>
void unionSites(const base::FlatMap<K, std::vector<Site>>& b, base::FlatMap<K, std::vector<Site>>& out) {
  for (const auto& [k, v] : b) {
    std::vector<Site>& into = out[k];
    for (const Site& s : v) {
      bool dup = false;
      for (const Site& o : into) dup = dup || (o.span.begin == s.span.begin && o.span.end == s.span.end);
      if (!dup && into.size() < 8) into.push_back(s);
    }
  }
}

}  // namespace

Notes NoteFacts::join(const Notes& a, const Notes& b) {
  Notes out = a;
  unionSites(b.consumedAt, out.consumedAt);
  unionSites(b.movedAt, out.movedAt);
  unionSites(b.emptiedAt, out.emptiedAt);
  for (const auto& [l, h] : b.ghosts)
    for (const auto& [k, g] : h) out.ghosts[l].emplace(k, g);
  return out;
}

void NoteFacts::forget(Notes& n, uint32_t local) {
  eraseLocal(n.movedAt, local);
  eraseLocal(n.emptiedAt, local);
  eraseLocal(n.ghosts, local);
}

// ---- the product ----

State bottom(TermStore& t, const State& like) {
  State s = like;
  s.pc = t.fls();
  return s;
}

namespace {

// The top-level conjuncts of `x`, in order, without repeats.
void conjuncts(TermStore& t, Term x, std::vector<Term>& out, std::unordered_set<uint32_t>& seen) {
  std::vector<Term> stack{x};
  while (!stack.empty()) {
    Term y = stack.back();
    stack.pop_back();
    if (t.isTrue(y) || !seen.insert(y.index).second) continue;
    const smt::TermNode& n = t.node(y);
    if (n.op == smt::TermOp::And) {
      for (size_t i = n.args.size(); i-- > 0;) stack.push_back(n.args[i]);
    } else {
      out.push_back(y);
    }
  }
}

}  // namespace

// ite(c, P ∧ x, P ∧ y) as P ∧ ite(c, x, y): the same formula, but a path
// condition that goes through a sequence of branches and loops stays a
// conjunction of each one's own choice, instead of nesting every earlier
// path condition in every later choice (which grows the solver's work with
// the number of branches before the query).
Term joinPathConditions(TermStore& t, Term c, Term a, Term b) {
  if (a == b) return a;
  std::vector<Term> xs, ys;
  std::unordered_set<uint32_t> seenA, seenB;
  conjuncts(t, a, xs, seenA);
  conjuncts(t, b, ys, seenB);
  std::vector<Term> common, onlyA, onlyB;
  for (Term x : xs) (seenB.count(x.index) ? common : onlyA).push_back(x);
  if (common.empty()) return t.mkIte(c, a, b);
  for (Term y : ys)
    if (!seenA.count(y.index)) onlyB.push_back(y);
  common.push_back(t.mkIte(c, t.mkAnd(onlyA), t.mkAnd(onlyB)));
  return t.mkAnd(common);
}

State join(TermStore& t, const State& a, const State& b, Term which) {
  if (t.isFalse(a.pc)) return b;
  if (t.isFalse(b.pc)) return a;
  State out;
  // `which` tells the sides apart: a fresh variable unless the caller has a
  // condition that does (a branch's). Facts then stay small, ite(which, ..),
  // instead of repeating the path conditions in every fact.
  Term c = which.valid() ? which : t.fresh("$join", smt::Sort::Bool);
  out.pc = joinPathConditions(t, c, a.pc, b.pc);
  out.scalars = ScalarFacts::join(t, c, a.scalars, b.scalars);
  out.refs = RefFacts::join(t, c, a.refs, b.refs);
  out.inflight = InFlightFacts::join(t, c, a.inflight, b.inflight);
  out.moved = MovedFacts::join(t, c, a.moved, b.moved);
  out.tokens = TokenFacts::join(t, c, a.tokens, b.tokens);
  out.notes = NoteFacts::join(a.notes, b.notes);
  return out;
}

State joinAll(TermStore& t, const std::vector<State>& states, const State& like) {
  State out = bottom(t, like);
  for (const State& s : states) out = join(t, out, s);
  return out;
}

void collect(TermStore& t, State& s, const std::function<bool(TransferId)>& keep) {
  std::set<TransferId> held;
  for (const auto& [l, h] : s.tokens)
    for (const auto& [k, g] : h)
      if (!t.isFalse(g)) held.insert(k);
  for (auto it = s.inflight.begin(); it != s.inflight.end();)
    it = held.count(it->first) || keep(it->first) ? std::next(it) : s.inflight.erase(it);
}

Term leq(TermStore& t, const State& a, const State& b) {
  // Under a.pc: b.pc holds, and every fact of a is one of b.
  std::vector<Term> parts{b.pc};
  ScalarFacts::leq(t, a.scalars, b.scalars, parts);
  InFlightFacts::leq(t, a.inflight, b.inflight, parts);
  MovedFacts::leq(t, a.moved, b.moved, parts);
  TokenFacts::leq(t, a.tokens, b.tokens, parts);
  RefFacts::leq(t, a.refs, b.refs, parts);
  return t.mkImplies(a.pc, t.mkAnd(parts));
}

void forgetLocal(State& s, uint32_t l) {
  ScalarFacts::forget(s.scalars, l);
  RefFacts::forget(s.refs, l);
  MovedFacts::forget(s.moved, l);
  TokenFacts::forget(s.tokens, l);
  NoteFacts::forget(s.notes, l);
}

}  // namespace vx::check::own
