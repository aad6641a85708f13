// The lattice laws of the ownership checker's states (src/check/own/Model.h),
// decided by the solver: a formula is valid when its negation is unsat.
#include <doctest/doctest.h>

#include "check/own/Model.h"
#include "smt/Solver.h"

using namespace vx::check::own;
using vx::smt::Sort;
using vx::smt::Verdict;

namespace {

struct Fixture {
  TermStore t;
  vx::smt::Solver solver{t};
  bool valid(Term f) { return solver.check(t.mkNot(f)) == Verdict::Unsat; }

  // A state on the paths where `pc` holds: scalar 0 = x, copy 0 in flight
  // under `f0` and held by location 1 under `h0`, local 2 moved under `m`.
  State make(Term pc, Term x, Term f0, Term h0, Term m) {
    State s;
    s.pc = pc;
    s.scalars[Loc{0, 0}] = x;
    s.inflight[0] = f0;
    s.tokens[Loc{1, 0}][0] = h0;
    s.moved[Loc{2, 0}] = m;
    return s;
  }
};

}  // namespace

TEST_CASE("a join contains both sides, and nothing else is needed to describe it") {
  Fixture fx;
  TermStore& t = fx.t;
  Term c = t.var("c", Sort::Bool), p = t.var("p", Sort::Bool);
  Term x = t.var("x", Sort::Int), y = t.var("y", Sort::Int);
  Term f = t.var("f", Sort::Bool), h = t.var("h", Sort::Bool), m = t.var("m", Sort::Bool);
  State a = fx.make(t.mkAnd(p, c), x, f, h, t.fls());
  State b = fx.make(t.mkAnd(p, t.mkNot(c)), y, t.tru(), t.tru(), m);
  State j = join(t, a, b, c);
  CHECK(fx.valid(leq(t, a, j)));
  CHECK(fx.valid(leq(t, b, j)));
  // Exact: where a's path holds, the join is a (and b where b's does).
  CHECK(fx.valid(leq(t, State{j}, j)));
  State ja = j;
  ja.pc = t.mkAnd(j.pc, c);
  CHECK(fx.valid(leq(t, ja, a)));
  State jb = j;
  jb.pc = t.mkAnd(j.pc, t.mkNot(c));
  CHECK(fx.valid(leq(t, jb, b)));
}

TEST_CASE("join is idempotent, commutative up to the condition, with the unreachable state as identity") {
  Fixture fx;
  TermStore& t = fx.t;
  Term c = t.var("c", Sort::Bool);
  Term x = t.var("x", Sort::Int);
  Term f = t.var("f", Sort::Bool), h = t.var("h", Sort::Bool);
  State a = fx.make(c, x, f, h, t.fls());
  State b = fx.make(t.mkNot(c), t.intConst(3), t.fls(), h, t.tru());
  State aa = join(t, a, a, c);
  CHECK(fx.valid(leq(t, aa, a)));
  CHECK(fx.valid(leq(t, a, aa)));
  State ab = join(t, a, b, c), ba = join(t, b, a, t.mkNot(c));
  CHECK(fx.valid(leq(t, ab, ba)));
  CHECK(fx.valid(leq(t, ba, ab)));
  State bot = bottom(t, a);
  State j = join(t, bot, a);
  CHECK(fx.valid(leq(t, j, a)));
  CHECK(fx.valid(leq(t, a, j)));
}

TEST_CASE("join is associative") {
  Fixture fx;
  TermStore& t = fx.t;
  Term c1 = t.var("c1", Sort::Bool), c2 = t.var("c2", Sort::Bool);
  Term x = t.var("x", Sort::Int);
  State a = fx.make(t.mkAnd(c1, c2), x, t.tru(), t.tru(), t.fls());
  State b = fx.make(t.mkAnd(c1, t.mkNot(c2)), t.mkAdd(x, t.intConst(1)), t.fls(), t.tru(), t.fls());
  State c = fx.make(t.mkNot(c1), t.intConst(0), t.tru(), t.fls(), t.tru());
  State left = join(t, join(t, a, b, c2), c, c1);
  State right = join(t, a, join(t, b, c, c1), t.mkAnd(c1, c2));
  CHECK(fx.valid(leq(t, left, right)));
  CHECK(fx.valid(leq(t, right, left)));
}

TEST_CASE("the order is reflexive and transitive, and a may-fact only grows up the order") {
  Fixture fx;
  TermStore& t = fx.t;
  Term p = t.var("p", Sort::Bool), f = t.var("f", Sort::Bool);
  Term x = t.var("x", Sort::Int);
  State low = fx.make(p, x, t.fls(), t.tru(), t.fls());   // copy not in flight
  State mid = fx.make(p, x, f, t.tru(), t.fls());         // maybe in flight
  State high = fx.make(t.tru(), x, t.tru(), t.tru(), t.tru());  // in flight, maybe moved
  CHECK(fx.valid(leq(t, low, low)));
  CHECK(fx.valid(leq(t, low, mid)));
  CHECK(fx.valid(leq(t, mid, high)));
  CHECK(fx.valid(leq(t, low, high)));
  CHECK(!fx.valid(leq(t, high, low)));
  CHECK(!fx.valid(leq(t, mid, low)));
}

TEST_CASE("forgetting copies no location holds keeps those a caller still needs") {
  Fixture fx;
  TermStore& t = fx.t;
  State s = fx.make(t.tru(), t.intConst(0), t.tru(), t.tru(), t.fls());
  s.inflight[1] = t.tru();  // held by nobody: dropped
  s.inflight[2] = t.tru();  // a token parameter's copy
  collect(t, s, [](TransferId k) { return k == 2; });
  CHECK(s.inflight.count(0) == 1);
  CHECK(s.inflight.count(1) == 0);
  CHECK(s.inflight.count(2) == 1);
}
