// The solver layer: answers satisfiability questions about Terms with Z3,
// caches structurally equal queries (terms are hash-consed, so equal queries
// are equal ids), and enforces a per-query and per-function budget. An
// exhausted budget answers Unknown: callers report W6900, never silently
// accept.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "smt/Term.h"

namespace vx::smt {

enum class Verdict { Sat, Unsat, Unknown };

// A term whose value a model reports, under the name users know it by.
struct Shown {
  std::string name;
  Term term;
  bool operator==(const Shown& o) const { return name == o.name && term == o.term; }
};

// A model in SMT-LIB `get-value` form: ((name value) ...).
struct Model {
  std::vector<std::pair<std::string, std::string>> values;
  std::string print() const;
};

struct SolverStats {
  uint64_t queries = 0;      // questions asked of the layer
  uint64_t trivial = 0;      // answered by folding (true/false) without Z3
  uint64_t cacheHits = 0;
  uint64_t solverCalls = 0;  // questions that reached Z3
  uint64_t unknowns = 0;
  double solverSeconds = 0;
};

struct SolverLimits {
  unsigned timeoutMs = 2000;      // per query
  unsigned rlimitPerQuery = 2'000'000;
  uint64_t rlimitPerFunction = 50'000'000;
  // Set when the answer is no longer wanted (a newer text in the language
  // server): the next query that would reach Z3 throws Cancelled.
  const std::atomic<bool>* cancel = nullptr;
};

struct Cancelled {};

class Prepared;

class Solver {
 public:
  // With `prepared`, takes one of its contexts (waiting for it) instead of
  // making one.
  Solver(TermStore& terms, SolverLimits limits = {}, Prepared* prepared = nullptr);
  ~Solver();

  // Is `formula` satisfiable? With `model`, fills the values of `show` (the
  // source values worth printing, any terms) when Sat.
  Verdict check(Term formula, Model* model = nullptr, const std::vector<Shown>& show = {});
  // A query whose answer only words a message (a finding's path note, a
  // counterexample with small values): at most kCheapRlimit, never a
  // nonlinear formula (Unknown at once), and an Unknown
  // is not cached for later queries.
  Verdict checkCheap(Term formula, Model* model = nullptr, const std::vector<Shown>& show = {});
  static constexpr unsigned kCheapRlimit = 1'000'000;
  // Starts a new function's budget.
  void resetFunctionBudget();
  // Whether the function's budget is spent (every later query that would
  // reach Z3 answers Unknown).
  bool functionBudgetSpent() const;
  // Starts a new check with the same terms (the language server keeps one
  // solver per document): new limits, no cached answers, zero statistics.
  void newRun(const SolverLimits& limits);
  const SolverStats& stats() const { return stats_; }
  // Records every query that reaches Z3 (`vxc check --explain-proof`).
  void setLog(std::vector<std::string>* log) { log_ = log; }

 private:
  friend class Prepared;
  Verdict check(Term formula, Model* model, const std::vector<Shown>& show, bool cacheUnknown);
  struct Impl;
  std::unique_ptr<Impl> impl_;
  TermStore& terms_;
  SolverLimits limits_;
  SolverStats stats_;
  std::vector<std::string>* log_ = nullptr;
};

// Z3 contexts made ahead of the solvers that use them, on a thread of its
// own: a context costs 10-30 ms to make, which the check spends while its
// earlier phases (parsing, types) keep only one core busy. Solvers made
// with it take the contexts in order; its destructor stops the thread after
// the context it is making, waits for it, and frees the contexts nobody
// took.
class Prepared {
 public:
  explicit Prepared(size_t count);
  ~Prepared();
  Prepared(const Prepared&) = delete;
  Prepared& operator=(const Prepared&) = delete;

 private:
  friend class Solver;
  std::unique_ptr<Solver::Impl> take();
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace vx::smt
