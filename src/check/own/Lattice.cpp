// The lattice of states: join (exact, by the branch conditions), the
// unreachable state, and the order. Widening is in Loops.cpp, where the facts
// a loop changes are known.
#include "check/own/Model.h"

#include <set>

namespace vx::check::own {

bool childLoc(Loc l, uint32_t i, Loc& out) {
  unsigned depth = 0;
  while (depth < 4 && ((l.path >> (8 * depth)) & 0xff) != 0) ++depth;
  if (depth == 4 || i >= 255) return false;
  out = l;
  out.path |= (i + 1) << (8 * depth);
  return true;
}

Term lookup(const base::FlatMap<uint32_t, Term>& m, uint32_t k, Term dflt) {
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

// Merges two maps of may-facts: absent means false.
template <typename K>
base::FlatMap<K, Term> joinFacts(TermStore& t, Term c, const base::FlatMap<K, Term>& a, const base::FlatMap<K, Term>& b) {
  base::FlatMap<K, Term> out;
  for (const auto& [k, v] : a) {
    auto it = b.find(k);
    out[k] = t.mkIte(c, v, it == b.end() ? t.fls() : it->second);
  }
  for (const auto& [k, v] : b)
    if (!a.count(k)) out[k] = t.mkIte(c, t.fls(), v);
  return out;
}

// Message data: where something happened. Kept small and cheap: the union
// by span, each with the condition it was first seen under.
template <typename K>
void joinSites(TermStore& t, Term ca, Term cb, const base::FlatMap<K, std::vector<Site>>& a,
               const base::FlatMap<K, std::vector<Site>>& b, base::FlatMap<K, std::vector<Site>>& out) {
  (void)t;
  (void)ca;
  (void)cb;
  out = a;
  for (const auto& [k, v] : b) {
    std::vector<Site>& into = out[k];
    for (const Site& s : v) {
      bool dup = false;
      for (const Site& o : into) dup = dup || (o.span.begin == s.span.begin && o.span.end == s.span.end);
      if (!dup && into.size() < 8) into.push_back(s);
    }
  }
}

RefVal joinRef(TermStore& t, Term ca, Term cb, const RefVal& a, const RefVal& b) {
  RefVal out;
  out.mut = a.mut || b.mut;
  out.unknown = a.unknown || b.unknown;
  // The same place on both sides keeps one entry: ite(a.pc, guard_a, guard_b).
  auto same = [](const Place& x, const Place& y) { return x.root == y.root && x.index == y.index; };
  std::vector<bool> used(b.alts.size(), false);
  for (const Alt& x : a.alts) {
    Term other = t.fls();
    for (size_t j = 0; j < b.alts.size(); ++j)
      if (!used[j] && same(x.place, b.alts[j].place)) {
        other = b.alts[j].guard;
        used[j] = true;
        break;
      }
    out.alts.push_back(Alt{x.place, t.mkIte(ca, x.guard, other)});
  }
  for (size_t j = 0; j < b.alts.size(); ++j)
    if (!used[j]) out.alts.push_back(Alt{b.alts[j].place, t.mkAnd(cb, b.alts[j].guard)});
  return out;
}

}  // namespace

State bottom(TermStore& t, const State& like) {
  State s = like;
  s.pc = t.fls();
  return s;
}

State join(TermStore& t, const State& a, const State& b, Term which) {
  if (t.isFalse(a.pc)) return b;
  if (t.isFalse(b.pc)) return a;
  State out;
  // `which` tells the sides apart: a fresh variable unless the caller has a
  // condition that does (a branch's). Facts then stay small, ite(which, ..),
  // instead of repeating the path conditions in every fact.
  Term c = which.valid() ? which : t.fresh("$join", smt::Sort::Bool);
  Term nc = t.mkNot(c);
  out.pc = t.mkIte(c, a.pc, b.pc);
  // A scalar or reference known on one side only was declared inside that
  // side's block and is out of scope after the join.
  for (const auto& [k, v] : a.scalars) {
    auto it = b.scalars.find(k);
    if (it != b.scalars.end()) out.scalars[k] = t.mkIte(c, v, it->second);
  }
  for (const auto& [k, v] : a.refs) {
    auto it = b.refs.find(k);
    if (it != b.refs.end()) out.refs[k] = joinRef(t, c, nc, v, it->second);
  }
  out.inflight = joinFacts(t, c, a.inflight, b.inflight);
  out.moved = joinFacts(t, c, a.moved, b.moved);
  for (const auto& [l, h] : a.tokens) {
    auto it = b.tokens.find(l);
    out.tokens[l] = joinFacts(t, c, h, it == b.tokens.end() ? Holds{} : it->second);
  }
  for (const auto& [l, h] : b.tokens)
    if (!a.tokens.count(l)) out.tokens[l] = joinFacts(t, c, Holds{}, h);
  joinSites(t, c, nc, a.consumedAt, b.consumedAt, out.consumedAt);
  joinSites(t, c, nc, a.movedAt, b.movedAt, out.movedAt);
  joinSites(t, c, nc, a.emptiedAt, b.emptiedAt, out.emptiedAt);
  out.ghosts = a.ghosts;
  for (const auto& [l, h] : b.ghosts)
    for (const auto& [k, g] : h) out.ghosts[l].emplace(k, g);
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
  // Under a.pc: b.pc holds, scalars agree, and every may-fact of a is one
  // of b (in flight, moved, held).
  std::vector<Term> parts{b.pc};
  for (const auto& [k, v] : a.scalars) {
    auto it = b.scalars.find(k);
    if (it != b.scalars.end()) parts.push_back(t.mkEq(v, it->second));
  }
  auto mayFacts = [&](const auto& x, const auto& y) {
    for (const auto& [k, v] : x) {
      auto it = y.find(k);
      parts.push_back(t.mkImplies(v, it == y.end() ? t.fls() : it->second));
    }
  };
  mayFacts(a.inflight, b.inflight);
  mayFacts(a.moved, b.moved);
  for (const auto& [l, h] : a.tokens) {
    auto it = b.tokens.find(l);
    mayFacts(h, it == b.tokens.end() ? Holds{} : it->second);
  }
  return t.mkImplies(a.pc, t.mkAnd(parts));
}

}  // namespace vx::check::own
