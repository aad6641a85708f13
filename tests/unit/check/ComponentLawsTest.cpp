// The laws of the ownership checker's fact components (src/check/own/
// Components.h) and of their product, the state (Model.h), on random states:
// join is idempotent, commutative and associative (up to its selector), the
// order agrees with join, widening is above what it widens and what a loop
// can make of it, widening chains stabilise, forgetting commutes with join.
// Each law is a formula the solver proves valid (its negation unsat).
#include <doctest/doctest.h>

#include <random>

#include "check/own/Components.h"
#include "smt/Solver.h"

using namespace vx::check::own;
using vx::smt::Sort;
using vx::smt::Verdict;

namespace {

struct Fixture {
  TermStore t;
  vx::smt::Solver solver{t};
  std::mt19937 rnd{12345};
  std::vector<Term> ints, bools;

  Fixture() {
    for (const char* n : {"x", "y"}) ints.push_back(t.var(n, Sort::Int));
    for (const char* n : {"c", "d", "e"}) bools.push_back(t.var(n, Sort::Bool));
  }
  bool valid(Term f) { return solver.check(t.mkNot(f)) == Verdict::Unsat; }
  // a ⊑ b and b ⊑ a.
  bool same(const State& a, const State& b) { return valid(t.mkAnd(leq(t, a, b), leq(t, b, a))); }

  size_t pick(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rnd); }
  bool coin() { return pick(2) == 0; }
  Term boolTerm() {
    switch (pick(5)) {
      case 0: return t.tru();
      case 1: return t.fls();
      case 2: return bools[pick(bools.size())];
      case 3: return t.mkNot(bools[pick(bools.size())]);
      default: return t.mkAnd(bools[pick(bools.size())], bools[pick(bools.size())]);
    }
  }
  // A path condition that is not the literal `false` (a join with the
  // unreachable state is its other side, by design: the identity law).
  Term pcTerm() {
    Term p = boolTerm();
    return t.isFalse(p) ? bools[0] : p;
  }
  Term intTerm() {
    switch (pick(4)) {
      case 0: return t.intConst(static_cast<int>(pick(3)));
      case 1: return ints[pick(ints.size())];
      default: return t.mkAdd(ints[pick(ints.size())], t.intConst(1));
    }
  }
  // A random state over locations 0..3 (scalars, tokens, moved flags,
  // references to roots 10..11) and copies 0..3.
  State state(Term pc) {
    State s;
    s.pc = pc;
    for (uint32_t l = 0; l < 4; ++l) {
      if (coin()) s.scalars[Loc{l, 0}] = intTerm();
      if (coin()) s.moved[Loc{l, 1}] = boolTerm();
      if (coin()) {
        Holds h;
        for (TransferId k = 0; k < 4; ++k)
          if (coin()) h[k] = boolTerm();
        s.tokens[Loc{l, 2}] = h;
      }
      if (coin()) {
        RefVal r;
        r.unknown = pick(6) == 0;
        for (uint32_t root = 10; root < 12; ++root)
          if (coin()) {
            Place p;
            p.root = Loc{root, 0};
            if (coin()) p.index = intTerm();
            r.alts.push_back(Alt{p, boolTerm()});
          }
        s.refs[Loc{l, 3}] = r;
      }
    }
    for (TransferId k = 0; k < 4; ++k)
      if (coin()) s.inflight[k] = boolTerm();
    return s;
  }
  // Two states with the same keys (a join of states of one program point
  // compares the facts both sides know).
  std::pair<State, State> pair(Term pcA, Term pcB) {
    State a = state(pcA);
    State b = a;
    b.pc = pcB;
    for (auto& [k, v] : b.scalars) v = intTerm();
    for (auto& [k, v] : b.moved) v = boolTerm();
    for (auto& [k, v] : b.inflight) v = boolTerm();
    for (auto& [l, h] : b.tokens)
      for (auto& [k, g] : h) g = boolTerm();
    return {a, b};
  }
};

constexpr int kCases = 60;

}  // namespace

TEST_CASE("join is idempotent, commutative and associative on random states") {
  Fixture fx;
  TermStore& t = fx.t;
  Term w1 = t.var("w1", Sort::Bool), w2 = t.var("w2", Sort::Bool);
  for (int i = 0; i < kCases; ++i) {
    auto [a, b] = fx.pair(fx.pcTerm(), fx.pcTerm());
    State c = b;
    c.pc = fx.pcTerm();
    for (auto& [k, v] : c.scalars) v = fx.intTerm();
    CHECK(fx.same(join(t, a, a, w1), a));
    CHECK(fx.same(join(t, a, b, w1), join(t, b, a, t.mkNot(w1))));
    // if w2: (if w1: a else b) else c  ==  if w1 && w2: a else (if w2: b else c)
    State left = join(t, join(t, a, b, w1), c, w2);
    State right = join(t, a, join(t, b, c, w2), t.mkAnd(w1, w2));
    CHECK(fx.same(left, right));
  }
}

TEST_CASE("joined path conditions are the branch's ite, with shared conjuncts taken out") {
  Fixture fx;
  TermStore& t = fx.t;
  for (int i = 0; i < kCases; ++i) {
    Term shared = t.mkAnd(fx.pcTerm(), fx.pcTerm());
    Term a = t.mkAnd(shared, fx.pcTerm()), b = t.mkAnd(fx.pcTerm(), shared);
    Term c = fx.boolTerm();
    Term j = joinPathConditions(t, c, a, b);
    CHECK(fx.valid(t.mkEq(j, t.mkIte(c, a, b))));
    // Nothing of `shared` is left under the ite: it is a conjunct of `j`.
    CHECK(fx.valid(t.mkImplies(j, shared)));
  }
}

TEST_CASE("the order agrees with join on random states") {
  Fixture fx;
  TermStore& t = fx.t;
  Term w = t.var("w", Sort::Bool);
  for (int i = 0; i < kCases; ++i) {
    auto [a, b] = fx.pair(fx.pcTerm(), fx.pcTerm());
    State j = join(t, a, b, w);
    // Each side is below the join where the selector picks it.
    CHECK(fx.valid(t.mkImplies(w, leq(t, a, j))));
    CHECK(fx.valid(t.mkImplies(t.mkNot(w), leq(t, b, j))));
    // a ⊑ b exactly when the join stays below b.
    if (fx.valid(leq(t, a, b))) CHECK(fx.valid(leq(t, j, b)));
    CHECK(fx.valid(leq(t, a, a)));
    CHECK(fx.valid(leq(t, bottom(t, a), a)));
  }
}

TEST_CASE("widening is above the state it widens and every state a loop can make of it") {
  Fixture fx;
  TermStore& t = fx.t;
  for (int i = 0; i < kCases; ++i) {
    State a = fx.state(fx.pcTerm());
    std::vector<Loc> scalars, moved, refs;
    for (const auto& [l, v] : a.scalars)
      if (fx.coin()) scalars.push_back(l);
    for (const auto& [l, v] : a.moved)
      if (fx.coin()) moved.push_back(l);
    for (const auto& [l, v] : a.refs)
      if (fx.coin()) refs.push_back(l);
    // A loop's state: `a` with the changed facts changed.
    State b = a;
    for (Loc l : scalars) b.scalars[l] = fx.intTerm();
    for (Loc l : moved) b.moved[l] = fx.boolTerm();
    for (Loc l : refs) b.refs[l] = RefVal{{}, false, fx.coin()};
    // Widen with fresh unknowns; each law holds with the unknowns taken to
    // be the state's values (the witness), as the analysis's fresh
    // variables may be.
    std::vector<Term> freshS, freshM;
    State h = a;
    ScalarFacts::widen(h.scalars, scalars, [&](Loc) {
      freshS.push_back(t.fresh("$w", Sort::Int));
      return freshS.back();
    });
    MovedFacts::widen(h.moved, moved, [&](Loc) {
      freshM.push_back(t.fresh("$m", Sort::Bool));
      return freshM.back();
    });
    RefFacts::widen(h.refs, refs);
    auto witness = [&](const State& s) {
      std::vector<Term> eqs;
      for (size_t k = 0; k < scalars.size(); ++k) eqs.push_back(t.mkEq(freshS[k], s.scalars.at(scalars[k])));
      for (size_t k = 0; k < moved.size(); ++k) eqs.push_back(t.mkEq(freshM[k], s.moved.at(moved[k])));
      return t.mkAnd(eqs);
    };
    CHECK(fx.valid(t.mkImplies(witness(a), leq(t, a, h))));
    CHECK(fx.valid(t.mkImplies(witness(b), leq(t, b, h))));
    // Widening again changes no key: the chain stabilises.
    State h2 = h;
    ScalarFacts::widen(h2.scalars, scalars, [&](Loc) { return t.fresh("$w", Sort::Int); });
    MovedFacts::widen(h2.moved, moved, [&](Loc) { return t.fresh("$m", Sort::Bool); });
    RefFacts::widen(h2.refs, refs);
    CHECK(h2.scalars.size() == h.scalars.size());
    CHECK(h2.moved.size() == h.moved.size());
    CHECK(h2.refs.size() == h.refs.size());
    for (const auto& [l, r] : h2.refs) CHECK(r.unknown == h.refs.at(l).unknown);
  }
}

TEST_CASE("forgetting a local commutes with join on random states") {
  Fixture fx;
  TermStore& t = fx.t;
  Term w = t.var("w", Sort::Bool);
  for (int i = 0; i < kCases; ++i) {
    auto [a, b] = fx.pair(fx.pcTerm(), fx.pcTerm());
    uint32_t l = static_cast<uint32_t>(fx.pick(4));
    State j = join(t, a, b, w);
    forgetLocal(j, l);
    State fa = a, fb = b;
    forgetLocal(fa, l);
    forgetLocal(fb, l);
    CHECK(fx.same(j, join(t, fa, fb, w)));
    for (const auto& [k, v] : j.scalars) CHECK(k.local != l);
    for (const auto& [k, v] : j.tokens) CHECK(k.local != l);
  }
}
