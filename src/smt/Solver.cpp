// The only file that includes z3++.h.
#include "smt/Solver.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <z3++.h>

#include "base/Thread.h"

namespace vx::smt {

std::string Model::print() const {
  std::string s = "(";
  for (size_t i = 0; i < values.size(); ++i)
    s += (i ? " (" : "(") + values[i].first + " " + values[i].second + ")";
  return s + ")";
}

struct Solver::Impl {
  // Before any solver exists: no nlsat in the arithmetic solver. In Z3
  // 4.8.12 nlsat does not check the resource limit (a product of two
  // unknowns ran to the 20 s clock backstop) and has known wrong `unsat`
  // answers, which for this checker would be unsound acceptances. Without
  // it a nonlinear query ends Unknown within its rlimit, and Unknown is
  // reported (W6900), never taken as a proof.
  // Z3's parameters are global: set once per process, never while another
  // thread's solver runs (the ownership check runs its parts at once).
  struct NoNlsat {
    NoNlsat() {
      static const bool set = [] {
        z3::set_param("smt.arith.nl.nra", false);
        return true;
      }();
      (void)set;
    }
  } noNlsat;
  z3::context ctx;
  // One solver, reused with push/pop: creating a solver per query costs more
  // than most queries.
  std::unique_ptr<z3::solver> solver;
  std::unordered_map<uint32_t, z3::expr> exprs;
  std::unordered_map<uint32_t, z3::expr> side;  // constraints of over-approximated terms
  // `x % d` by a variable `d`, by divisor: (dividend's base, its constant
  // offset, the result) — two of one divisor whose dividends differ by a
  // constant are related linearly (translate).
  struct ModByVar {
    uint32_t base;
    Int128 offset;
    z3::expr result;
  };
  std::unordered_map<uint32_t, std::vector<ModByVar>> modsByDivisor;
  struct Cached {
    Verdict verdict;
    Model model;
    std::vector<Shown> shown;
  };
  std::unordered_map<uint32_t, Cached> cache;
  // The solver keeps every conjunct it was asked about, as `g => c` with a
  // guard literal `g` per conjunct; a query is the guards of its conjuncts
  // as assumptions. Consecutive queries of one function share most of their
  // path condition, which Z3 then takes in (and learns from) once. The
  // solver starts afresh per function, so this does not grow without end.
  std::unordered_map<uint32_t, z3::expr> guards;
  std::unordered_set<uint32_t> sideAsserted;
  void dropSolver() {
    solver.reset();
    guards.clear();
    sideAsserted.clear();
    // (rlimitSeen stays: Z3's "rlimit count" is the context's, which the
    // next solver goes on counting. Set back to 0 here, the next
    // function's first query was charged every query of the context
    // before it: a function checked after one that spent its budget was
    // W6900 at its first query.)
  }
  /* A model in which every over-approximated `x / d` and `x % d` has its
   * exact value, where the solver finds one within kCheapRlimit: the
   * verdict stands either way (the approximation is sound), but a
   * counterexample with `-4 % -2 == -1` is no execution. The exact terms
   * are nonlinear; the query runs in its own scope and leaves the
   * solver's assertions as they were. */
  // False when Z3 threw: the solver is then in no known state (dropSolver).
  bool exactModel(const TermStore& ts, const std::vector<Term>& approximated, const z3::expr_vector& assumptions,
                  z3::model& model, unsigned rlimitPerQuery) {
    try {
      z3::solver& s = *solver;
      s.push();
      for (Term t : approximated) {
        const TermNode& n = ts.node(t);
        z3::expr x = translate(ts, n.args[0]), d = translate(ts, n.args[1]), e = translate(ts, t);
        s.add(z3::implies(d != 0, e == (n.op == TermOp::EuclidDiv ? x / d : z3::mod(x, d))));
      }
      z3::params cheap(ctx);
      cheap.set("rlimit", Solver::kCheapRlimit);
      s.set(cheap);
      if (s.check(assumptions) == z3::sat) model = s.get_model();
      s.pop();
      z3::params back(ctx);
      back.set("rlimit", rlimitPerQuery);
      s.set(back);
      return true;
    } catch (const z3::exception&) {
      return false;
    }
  }
  uint64_t functionRlimitUsed = 0;
  uint64_t rlimitSeen = 0;  // the context's cumulative "rlimit count" after the last query

  z3::expr translate(const TermStore& ts, Term t) {
    auto it = exprs.find(t.index);
    if (it != exprs.end()) return it->second;
    const TermNode& n = ts.node(t);
    auto arg = [&](size_t i) { return translate(ts, n.args[i]); };
    z3::expr e(ctx);
    switch (n.op) {
      case TermOp::True: e = ctx.bool_val(true); break;
      case TermOp::False: e = ctx.bool_val(false); break;
      case TermOp::IntConst: e = ctx.int_val(toString(n.value).c_str()); break;
      case TermOp::BvConst: e = ctx.bv_val(static_cast<uint64_t>(n.value), n.sort == Sort::BV2 ? 2 : 8); break;
      case TermOp::Var: {
        const std::string& name = ts.varName(t);
        switch (n.sort) {
          case Sort::Bool: e = ctx.bool_const(name.c_str()); break;
          case Sort::Int: e = ctx.int_const(name.c_str()); break;
          case Sort::BV2: e = ctx.bv_const(name.c_str(), 2); break;
          case Sort::BV8: e = ctx.bv_const(name.c_str(), 8); break;
        }
        break;
      }
      case TermOp::Not: e = !arg(0); break;
      case TermOp::And: e = arg(0) && arg(1); break;
      case TermOp::Or: e = arg(0) || arg(1); break;
      case TermOp::Implies: e = z3::implies(arg(0), arg(1)); break;
      case TermOp::Ite: e = z3::ite(arg(0), arg(1), arg(2)); break;
      case TermOp::Eq: e = arg(0) == arg(1); break;
      case TermOp::Lt: e = arg(0) < arg(1); break;
      case TermOp::Le: e = arg(0) <= arg(1); break;
      case TermOp::Add: e = arg(0) + arg(1); break;
      case TermOp::Sub: e = arg(0) - arg(1); break;
      case TermOp::Mul: e = arg(0) * arg(1); break;
      case TermOp::Neg: e = -arg(0); break;
      case TermOp::EuclidDiv:
      case TermOp::EuclidMod:
        if (ts.isConst(n.args[1])) {
          e = n.op == TermOp::EuclidDiv ? arg(0) / arg(1) : z3::mod(arg(0), arg(1));  // Z3's `/` is SMT-LIB div
        } else {
          // By a variable: non-linear, and costly for the solver. The result
          // is an unknown within the operation's range (a sound
          // over-approximation), one per distinct term.
          std::string name = std::string(n.op == TermOp::EuclidDiv ? "$div" : "$mod") + std::to_string(t.index);
          e = ctx.int_const(name.c_str());
          if (n.op == TermOp::EuclidMod) {
            z3::expr d = arg(1);
            z3::expr absd = z3::ite(d >= 0, d, -d);
            z3::expr facts = z3::implies(d != 0, e >= 0 && e < absd);
            // Linear where the dividend is within one or two divisors:
            // `x % d` is x on [0, d) and x - d on [d, 2d).
            z3::expr xv = arg(0);
            facts = facts && z3::implies(xv >= 0 && xv < d, e == xv) && z3::implies(d > 0 && xv >= d && xv < d + d, e == xv - d);
            // (y + c) mod d, for 0 <= c < d, is (y mod d) + c or that
            // minus d: so `(i + 1) % k` and `i % k` differ when k >= 2.
            Term x = n.args[0];
            Int128 offset = 0;
            const TermNode& xn = ts.node(x);
            if (xn.op == TermOp::Add && ts.isConst(xn.args[1])) {
              offset = ts.constValue(xn.args[1]);
              x = xn.args[0];
            } else if (xn.op == TermOp::Add && ts.isConst(xn.args[0])) {
              offset = ts.constValue(xn.args[0]);
              x = xn.args[1];
            }
            std::vector<ModByVar>& same = modsByDivisor[n.args[1].index];
            for (const ModByVar& o : same) {
              if (o.base != x.index || o.offset == offset) continue;
              Int128 c = offset > o.offset ? offset - o.offset : o.offset - offset;
              if (c > Int128(1) << 62) continue;
              const z3::expr& lo = offset > o.offset ? o.result : e;
              const z3::expr& hi = offset > o.offset ? e : o.result;
              z3::expr cc = ctx.int_val(toString(c).c_str());
              facts = facts && z3::implies(d > cc, (hi == lo + cc && lo + cc < d) || (hi == lo + cc - d && lo + cc >= d));
            }
            same.push_back(ModByVar{x.index, offset, e});
            side.emplace(t.index, facts);
          } else {
            // The quotient's linear facts: 0 below one divisor, x by 1, and
            // between 0 and x (or x and -1) for a positive divisor.
            z3::expr d = arg(1), xv = arg(0);
            z3::expr facts = z3::implies(d > 0 && xv >= 0 && xv < d, e == 0) && z3::implies(d == 1, e == xv) &&
                             z3::implies(d > 0 && xv >= 0, e >= 0 && e <= xv) &&
                             z3::implies(d > 0 && xv < 0, e < 0 && e >= xv);
            side.emplace(t.index, facts);
          }
        }
        break;
    }
    exprs.emplace(t.index, e);
    return e;
  }
};

Solver::Solver(TermStore& terms, SolverLimits limits, Prepared* prepared)
    : impl_(prepared ? prepared->take() : nullptr), terms_(terms), limits_(limits) {
  if (!impl_) impl_ = std::make_unique<Impl>();
}

struct Prepared::State {
  std::mutex m;
  std::condition_variable cv;
  std::vector<std::unique_ptr<Solver::Impl>> ready;  // in the order made
  size_t next = 0;                                   // the next one to hand out
  bool done = false;                                 // the thread made all it will
  bool stop = false;                                 // no more wanted (the check ended early)
  std::optional<base::Thread> thread;                // last: joined first
};

Prepared::Prepared(size_t count) : state_(std::make_unique<State>()) {
  State* st = state_.get();
  st->thread.emplace([st, count] {
    for (size_t i = 0; i < count; ++i) {
      {
        std::lock_guard<std::mutex> lock(st->m);
        if (st->stop) break;
      }
      std::unique_ptr<Solver::Impl> impl;
      try {
        impl = std::make_unique<Solver::Impl>();
      } catch (...) {
        break;  // the solver that wanted it makes its own, and reports what fails
      }
      std::lock_guard<std::mutex> lock(st->m);
      st->ready.push_back(std::move(impl));
      st->cv.notify_all();
    }
    std::lock_guard<std::mutex> lock(st->m);
    st->done = true;
    st->cv.notify_all();
  }, size_t{16} << 20);  // makes contexts, recurses over nothing: no phase stack (base/Thread.h)
}

Prepared::~Prepared() {
  // A check that ends before its solvers (a syntax or type error) waits for
  // the context being made, not for the rest.
  std::lock_guard<std::mutex> lock(state_->m);
  state_->stop = true;
}

std::unique_ptr<Solver::Impl> Prepared::take() {
  std::unique_lock<std::mutex> lock(state_->m);
  state_->cv.wait(lock, [&] { return state_->next < state_->ready.size() || state_->done; });
  if (state_->next < state_->ready.size()) return std::move(state_->ready[state_->next++]);
  return nullptr;
}
Solver::~Solver() = default;

bool Solver::functionBudgetSpent() const { return impl_->functionRlimitUsed >= limits_.rlimitPerFunction; }

void Solver::resetFunctionBudget() {
  impl_->functionRlimitUsed = 0;
  impl_->dropSolver();
}

void Solver::newRun(const SolverLimits& limits) {
  limits_ = limits;
  impl_->cache.clear();
  impl_->functionRlimitUsed = 0;
  impl_->dropSolver();
  stats_ = SolverStats{};
}

namespace {

// A product of two non-constant terms, or a division or remainder by one.
bool nonlinear(const TermStore& ts, Term f) {
  std::vector<Term> stack{f};
  std::unordered_set<uint32_t> seen;
  while (!stack.empty()) {
    Term x = stack.back();
    stack.pop_back();
    if (!seen.insert(x.index).second) continue;
    const TermNode& n = ts.node(x);
    auto constant = [&](size_t i) { return ts.node(n.args[i]).op == TermOp::IntConst; };
    if (n.op == TermOp::Mul && !constant(0) && !constant(1)) return true;
    if ((n.op == TermOp::EuclidDiv || n.op == TermOp::EuclidMod) && !constant(1)) return true;
    for (Term y : n.args) stack.push_back(y);
  }
  return false;
}

}  // namespace

Verdict Solver::checkCheap(Term formula, Model* model, const std::vector<Shown>& show) {
  // Z3 4.8.12's nonlinear integer arithmetic can run past the resource
  // limit to the clock backstop; a query that only words a message is not
  // worth that.
  if (nonlinear(terms_, formula)) {
    ++stats_.queries;
    ++stats_.unknowns;
    return Verdict::Unknown;
  }
  SolverLimits full = limits_;
  limits_.rlimitPerQuery = std::min<unsigned>(limits_.rlimitPerQuery, kCheapRlimit);
  if (impl_->solver) {
    z3::params p(impl_->ctx);
    p.set("rlimit", limits_.rlimitPerQuery);
    impl_->solver->set(p);
  }
  Verdict v = check(formula, model, show, /*cacheUnknown=*/false);
  limits_ = full;
  if (impl_->solver) {
    z3::params p(impl_->ctx);
    p.set("rlimit", limits_.rlimitPerQuery);
    impl_->solver->set(p);
  }
  return v;
}

Verdict Solver::check(Term formula, Model* model, const std::vector<Shown>& show) {
  return check(formula, model, show, /*cacheUnknown=*/true);
}

Verdict Solver::check(Term formula, Model* model, const std::vector<Shown>& show, bool cacheUnknown) {
  ++stats_.queries;
  if (terms_.isTrue(formula) || terms_.isFalse(formula)) {
    ++stats_.trivial;
    if (model) model->values.clear();
    return terms_.isTrue(formula) ? Verdict::Sat : Verdict::Unsat;
  }
  auto cached = impl_->cache.find(formula.index);
  if (cached != impl_->cache.end() && (!model || cached->second.shown == show)) {
    ++stats_.cacheHits;
    if (model) *model = cached->second.model;
    return cached->second.verdict;
  }
  if (limits_.cancel && limits_.cancel->load(std::memory_order_relaxed)) throw Cancelled{};
  if (impl_->functionRlimitUsed >= limits_.rlimitPerFunction) {
    ++stats_.unknowns;
    return Verdict::Unknown;
  }
  ++stats_.solverCalls;
  auto start = std::chrono::steady_clock::now();
  Verdict v = Verdict::Unknown;
  Model m;
  try {
    if (!impl_->solver) {
      impl_->solver = std::make_unique<z3::solver>(impl_->ctx, z3::solver::simple());
      z3::params p(impl_->ctx);
      p.set("timeout", limits_.timeoutMs);
      p.set("rlimit", limits_.rlimitPerQuery);
      impl_->solver->set(p);
    }
    z3::solver& s = *impl_->solver;
    // The formula's top-level conjuncts, each behind its guard.
    z3::expr_vector assumptions(impl_->ctx);
    {
      std::vector<Term> stack{formula};
      std::unordered_set<uint32_t> seen;
      while (!stack.empty()) {
        Term x = stack.back();
        stack.pop_back();
        if (!seen.insert(x.index).second) continue;
        const TermNode& n = terms_.node(x);
        if (n.op == TermOp::And) {
          for (Term y : n.args) stack.push_back(y);
          continue;
        }
        auto g = impl_->guards.find(x.index);
        if (g == impl_->guards.end()) {
          z3::expr lit = impl_->ctx.bool_const(("$g" + std::to_string(x.index)).c_str());
          s.add(z3::implies(lit, impl_->translate(terms_, x)));
          g = impl_->guards.emplace(x.index, lit).first;
        }
        assumptions.push_back(g->second);
      }
    }
    // The facts of over-approximated terms hold of every value of their
    // arguments (what `x % d` is for each x and d): asserted once, unguarded.
    std::vector<Term> approximated;  // reached from the formula
    if (!impl_->side.empty()) {
      std::vector<Term> stack{formula};
      std::unordered_set<uint32_t> seen;
      while (!stack.empty()) {
        Term x = stack.back();
        stack.pop_back();
        if (!seen.insert(x.index).second) continue;
        auto it = impl_->side.find(x.index);
        if (it != impl_->side.end()) {
          approximated.push_back(x);
          if (impl_->sideAsserted.insert(x.index).second) s.add(it->second);
        }
        for (Term y : terms_.node(x).args) stack.push_back(y);
      }
    }
    z3::check_result r = s.check(assumptions);
    // Charge what the query used: Z3's cumulative resource count (the
    // per-query limit, as an upper bound, when unknown).
    auto rlimitCount = [&]() -> std::optional<uint64_t> {
      try {
        z3::stats st = s.statistics();
        for (unsigned k = 0; k < st.size(); ++k)
          if (st.key(k) == "rlimit count")
            return static_cast<uint64_t>(st.is_uint(k) ? st.uint_value(k) : st.double_value(k));
      } catch (const z3::exception&) {
      }
      return std::nullopt;
    };
    uint64_t used = limits_.rlimitPerQuery;
    if (std::optional<uint64_t> now = rlimitCount()) {
      used = *now >= impl_->rlimitSeen ? *now - impl_->rlimitSeen : *now;
      impl_->rlimitSeen = *now;
    }
    impl_->functionRlimitUsed += r == z3::unknown ? limits_.rlimitPerQuery : used;
    if (r == z3::sat) {
      v = Verdict::Sat;
      z3::model zm = s.get_model();
      bool solverKept = true;
      // The values shown may rest on approximated terms the formula does
      // not reach (`z = x / y`, shown, where the race is on `y` alone).
      for (const Shown& x : show) impl_->translate(terms_, x.term);  // records their approximations
      if (!impl_->side.empty() && !show.empty()) {
        std::vector<Term> stack;
        for (const Shown& x : show) stack.push_back(x.term);
        std::unordered_set<uint32_t> seen;
        for (Term x : approximated) seen.insert(x.index);
        while (!stack.empty()) {
          Term x = stack.back();
          stack.pop_back();
          if (!seen.insert(x.index).second) continue;
          if (impl_->side.count(x.index)) approximated.push_back(x);
          for (Term y : terms_.node(x).args) stack.push_back(y);
        }
      }
      if (!approximated.empty() && !show.empty()) {
        // Not charged: it only makes the counterexample exact.
        solverKept = impl_->exactModel(terms_, approximated, assumptions, zm, limits_.rlimitPerQuery);
        if (std::optional<uint64_t> now = solverKept ? rlimitCount() : std::nullopt) impl_->rlimitSeen = *now;
      }
      for (const Shown& x : show) {
        z3::expr val = zm.eval(impl_->translate(terms_, x.term), true);
        std::string text = val.to_string();
        // Z3 prints negative integers as `(- 5)`; keep that SMT-LIB form.
        m.values.emplace_back(x.name, text);
      }
      if (!solverKept) impl_->dropSolver();
    } else if (r == z3::unsat) {
      v = Verdict::Unsat;
    }
  } catch (const z3::exception&) {
    v = Verdict::Unknown;
    impl_->dropSolver();  // its state is unknown now
  }
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  stats_.solverSeconds += took;
  if (std::getenv("VX_DEBUG_SOLVER")) {
    std::vector<Term> stack{formula};
    std::unordered_map<uint32_t, bool> seen;
    while (!stack.empty()) {
      Term x = stack.back();
      stack.pop_back();
      if (seen[x.index]) continue;
      seen[x.index] = true;
      for (Term y : terms_.node(x).args) stack.push_back(y);
    }
    std::fprintf(stderr, "query: %zu nodes, %zu vars, %.3f s\n", seen.size(), terms_.variables(formula).size(), took);
  }
  if (v == Verdict::Unknown) ++stats_.unknowns;
  if (log_) {
    const char* verdict = v == Verdict::Sat ? "sat" : v == Verdict::Unsat ? "unsat" : "unknown";
    std::string decls;
    for (Term var : terms_.variables(formula)) {
      Sort so = terms_.sort(var);
      decls += "(declare-const |" + terms_.varName(var) + "| " +
               (so == Sort::Bool ? "Bool" : so == Sort::Int ? "Int" : so == Sort::BV2 ? "(_ BitVec 2)" : "(_ BitVec 8)") +
               ")\n";
    }
    log_->push_back(decls + "(assert " + terms_.print(formula) + ")\n(check-sat) ; " + verdict +
                    (v == Verdict::Sat && !m.values.empty() ? "  " + m.print() : ""));
  }
  if (v != Verdict::Unknown || cacheUnknown) impl_->cache[formula.index] = Impl::Cached{v, m, show};
  if (model) *model = m;
  return v;
}

}  // namespace vx::smt
