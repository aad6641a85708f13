#include <doctest/doctest.h>

#include "smt/Solver.h"
#include "smt/Term.h"

using namespace vx::smt;

TEST_CASE("construction folds constants and trivial cases") {
  TermStore t;
  Term x = t.var("x", Sort::Int);
  CHECK(t.mkAdd(t.intConst(2), t.intConst(3)) == t.intConst(5));
  CHECK(t.mkAnd(t.tru(), t.mkLt(x, t.intConst(1))) == t.mkLt(x, t.intConst(1)));
  CHECK(t.mkAnd(t.var("b", Sort::Bool), t.mkNot(t.var("b", Sort::Bool))) == t.fls());
  CHECK(t.mkEq(x, x) == t.tru());
  CHECK(t.mkIte(t.tru(), x, t.intConst(0)) == x);
}

TEST_CASE("equal formulas are one term") {
  TermStore t;
  Term a = t.mkLt(t.var("i", Sort::Int), t.var("n", Sort::Int));
  Term b = t.mkLt(t.var("i", Sort::Int), t.var("n", Sort::Int));
  CHECK(a == b);
}

TEST_CASE("Rust's remainder truncates toward zero") {
  TermStore t;
  Solver s(t);
  Term x = t.var("x", Sort::Int);
  // -7 % 2 == -1 in Rust (SMT-LIB's mod would give 1).
  Term q = t.mkAnd(t.mkEq(x, t.intConst(-7)), t.mkEq(t.mkTruncRem(x, t.intConst(2)), t.intConst(-1)));
  CHECK(s.check(q) == Verdict::Sat);
  Term wrong = t.mkAnd(t.mkEq(x, t.intConst(-7)), t.mkEq(t.mkTruncRem(x, t.intConst(2)), t.intConst(1)));
  CHECK(s.check(wrong) == Verdict::Unsat);
  // -7 / 2 == -3 (truncating), not -4.
  Term div = t.mkAnd(t.mkEq(x, t.intConst(-7)), t.mkEq(t.mkTruncDiv(x, t.intConst(2)), t.intConst(-3)));
  CHECK(s.check(div) == Verdict::Sat);
}

TEST_CASE("ring slots (i + 1) % 2 and i % 2 never alias for i >= 0") {
  TermStore t;
  Solver s(t);
  Term i = t.var("i", Sort::Int);
  Term two = t.intConst(2);
  Term alias = t.mkEq(t.mkEuclidMod(t.mkAdd(i, t.intConst(1)), two), t.mkEuclidMod(i, two));
  CHECK(s.check(t.mkAnd(t.mkLe(t.intConst(0), i), alias)) == Verdict::Unsat);
  Term bad = t.mkEq(t.mkEuclidMod(t.mkAdd(i, two), two), t.mkEuclidMod(i, two));
  Model m;
  CHECK(s.check(t.mkAnd(t.mkLe(t.intConst(0), i), bad), &m, {Shown{"i", i}}) == Verdict::Sat);
  REQUIRE(m.values.size() == 1);
  CHECK(m.values[0].first == "i");
  CHECK(m.print().rfind("((i ", 0) == 0);
}

TEST_CASE("structurally equal queries hit the cache") {
  TermStore t;
  Solver s(t);
  Term i = t.var("i", Sort::Int);
  Term q = t.mkAnd(t.mkLt(i, t.intConst(3)), t.mkLt(t.intConst(1), i));
  CHECK(s.check(q) == Verdict::Sat);
  CHECK(s.check(t.mkAnd(t.mkLt(i, t.intConst(3)), t.mkLt(t.intConst(1), i))) == Verdict::Sat);
  CHECK(s.stats().solverCalls == 1);
  CHECK(s.stats().cacheHits == 1);
}

TEST_CASE("an exhausted budget answers unknown, never a verdict") {
  TermStore t;
  SolverLimits limits;
  limits.rlimitPerQuery = 1;
  Solver s(t, limits);
  Term x = t.var("x", Sort::Int), y = t.var("y", Sort::Int);
  Term hard = t.mkAnd(t.mkEq(t.mkMul(x, x), t.mkAdd(t.mkMul(y, y), t.intConst(7))), t.mkLt(t.intConst(3), x));
  CHECK(s.check(hard) == Verdict::Unknown);
  CHECK(s.stats().unknowns == 1);
}

TEST_CASE("a function's budget is its own: the next function's queries are not charged the ones before") {
  // One context serves every function of a check; Z3 counts its resources
  // per context. The first function spends its budget, the next starts at
  // nothing spent: its queries are answered.
  TermStore t;
  SolverLimits limits;
  limits.rlimitPerFunction = 200'000;
  Solver s(t, limits);
  Term x = t.var("x", Sort::Int), y = t.var("y", Sort::Int);
  auto query = [&](int k) {  // distinct each time (no cache hit), satisfiable
    return t.mkAnd({t.mkEq(t.mkAdd(t.mkMul(t.intConst(3 + k % 7), x), t.mkMul(t.intConst(5), y)), t.intConst(1000 + k)),
                    t.mkLe(t.intConst(0), x), t.mkLe(t.intConst(0), y), t.mkLt(x, t.intConst(10'000 + k))});
  };
  int k = 0;
  s.resetFunctionBudget();
  for (; k < 100'000 && !s.functionBudgetSpent(); ++k) s.check(query(k));
  REQUIRE(s.functionBudgetSpent());
  s.resetFunctionBudget();
  CHECK_FALSE(s.functionBudgetSpent());
  CHECK(s.check(query(k + 1)) == Verdict::Sat);
  CHECK_FALSE(s.functionBudgetSpent());
  CHECK(s.check(query(k + 2)) == Verdict::Sat);
}

TEST_CASE("bit-vector state tags print in SMT-LIB form") {
  TermStore t;
  Solver s(t);
  Term tag = t.var("tag_slot", Sort::BV2);
  Model m;
  CHECK(s.check(t.mkEq(tag, t.bvConst(Sort::BV2, 3)), &m, {Shown{"tag_slot", tag}}) == Verdict::Sat);
  CHECK(m.print() == "((tag_slot #b11))");
}

TEST_CASE("substitution shifts the induction variable") {
  TermStore t;
  Term i = t.var("i", Sort::Int);
  Term slot = t.mkEuclidMod(t.mkAdd(i, t.intConst(1)), t.intConst(2));
  Term shifted = t.substitute(slot, {i}, {t.mkSub(i, t.intConst(2))});
  CHECK(t.print(shifted) == "(mod (+ |i| (- 1)) 2)");
}

TEST_CASE("a ring counter stepped k times stays one mod deep") {
  TermStore t;
  Term s = t.var("s", Sort::Int);
  Term r = t.intConst(3);
  Term x = s;
  for (int k = 0; k < 5; ++k) x = t.mkEuclidMod(t.mkAdd(x, t.intConst(1)), r);
  CHECK(t.print(x) == "(mod (+ |s| 5) 3)");
  CHECK(t.mkEuclidMod(x, r) == x);
  Solver solver(t);
  // (s + 5) mod 3 = (s + 2) mod 3 for every s: the rewrite is exact.
  CHECK(solver.check(t.mkNot(t.mkEq(x, t.mkEuclidMod(t.mkAdd(s, t.intConst(2)), r)))) == Verdict::Unsat);
}

TEST_CASE("a model reports the values of terms, not only of variables") {
  TermStore t;
  Solver s(t);
  Term i = t.var("i", Sort::Int);
  Model m;
  Term slot = t.mkEuclidMod(t.mkAdd(i, t.intConst(1)), t.intConst(2));
  CHECK(s.check(t.mkAnd(t.mkEq(i, t.intConst(4)), t.mkLe(t.intConst(0), i)), &m, {Shown{"slot", slot}}) ==
        Verdict::Sat);
  CHECK(m.print() == "((slot 1))");
}

TEST_CASE("integer constants keep the full range of u64 and fold without wrapping") {
  TermStore t;
  Int128 u64max = (Int128(1) << 64) - 1;
  Term big = t.intConst(u64max);
  CHECK(t.constValue(big) == u64max);
  CHECK(t.print(big) == "18446744073709551615");
  CHECK(t.isTrue(t.mkLt(t.intConst(0), big)));
  // i64::MIN / -1 and i64::MIN % -1: Rust traps at run time; folding must
  // not crash the checker (128-bit arithmetic holds 2^63).
  Term min = t.intConst(-(Int128(1) << 63));
  CHECK(t.constValue(t.mkTruncDiv(min, t.intConst(-1))) == (Int128(1) << 63));
  CHECK(t.constValue(t.mkTruncRem(min, t.intConst(-1))) == 0);
  // Products past 2^120 stay symbolic instead of overflowing.
  Term huge = t.intConst(Int128(1) << 100);
  CHECK(!t.isConst(t.mkMul(huge, huge)));
  Solver s(t);
  CHECK(s.check(t.mkEq(t.mkMul(huge, huge), t.intConst(0))) == Verdict::Unsat);
}

TEST_CASE("solvers on prepared contexts answer as solvers on their own, also past the prepared count") {
  TermStore t;
  Term x = t.var("x", Sort::Int);
  Term sat = t.mkLt(x, t.intConst(3));
  Term unsat = t.mkAnd(sat, t.mkLt(t.intConst(5), x));
  Prepared prepared(2);
  Solver a(t, {}, &prepared), b(t, {}, &prepared), c(t, {}, &prepared);  // c makes its own
  for (Solver* s : {&a, &b, &c}) {
    CHECK(s->check(sat) == Verdict::Sat);
    CHECK(s->check(unsat) == Verdict::Unsat);
  }
}

TEST_CASE("prepared contexts nobody takes are freed with the pool") {
  TermStore t;
  {
    Prepared none(0);
    Solver s(t, {}, &none);
    CHECK(s.check(t.mkLt(t.var("y", Sort::Int), t.intConst(0))) == Verdict::Sat);
  }
  { Prepared unused(2); }  // stops after the context in hand, joins, frees
}

TEST_CASE("a term found again is the same term, whatever its arguments' container") {
  TermStore t;
  Term a = t.var("a", Sort::Bool), b = t.var("b", Sort::Bool), c = t.var("c", Sort::Bool);
  size_t before = t.size();
  Term ab = t.mkAnd(a, b);
  CHECK(t.size() == before + 1);
  CHECK(t.mkAnd(b, a) == ab);
  CHECK(t.mkAnd(std::vector<Term>{a, b}) == ab);
  CHECK(t.size() == before + 1);
  Term abc = t.mkAnd(ab, c);
  CHECK(abc != ab);
  CHECK(t.node(abc).args.size() == 2);
}
