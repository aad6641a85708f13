// Data of the ownership checker: the abstract state at a program point and
// the walk's context. Every fact is a formula over source values and branch
// conditions ("t holds a live token <=> phi"), so joins stay exact and the
// solver decides whether a bad state is reachable.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "check/Ownership.h"
#include "smt/Solver.h"
#include "smt/Term.h"

namespace vx::check::own {

using smt::Term;

// A place a transfer reads or writes: a root local, whole or one slot.
struct Region {
  hir::LocalId root;
  bool whole = true;
  Term index;          // slot index (Int) when !whole
  std::string text;    // how the user wrote it: `slots[(i + 1) % 2]`
};

// One transfer started by a call. `age` counts loop iterations since it was
// started (0: this iteration, or straight-line code).
struct Transfer {
  hir::ExprId site;
  uint32_t age = 0;
  hir::Builtin kind = hir::Builtin::None;
  std::optional<Region> dst;  // written by the DMA (transfer_async_into, store_async)
  std::optional<Region> src;  // read by the DMA
  base::Span span;
  std::string tokenName;      // the local it was first bound to, for messages
};

// A token value: which transfers it may hold, each under a formula.
struct TokenVal {
  std::map<uint32_t, Term> holds;
  // What a local held before it was moved out or consumed, for messages
  // ("first consumed here", "token created here").
  std::map<uint32_t, Term> ghost;
};

// The facts at one program point, valid where `pc` holds.
struct State {
  Term pc;
  std::map<uint32_t, Term> inflight;               // transfer -> not yet waited
  std::map<uint32_t, TokenVal> tokens;             // token local -> value
  std::map<uint32_t, Term> moved;                  // move-only local -> moved out
  std::map<uint32_t, std::vector<std::pair<base::Span, Term>>> moveSites;
  std::map<uint32_t, std::vector<std::pair<base::Span, Term>>> consumeSites;  // transfer -> waits
  std::map<uint32_t, Term> scalars;                // int/bool local -> value
  std::map<uint32_t, std::map<uint32_t, Term>> ghosts;  // token local -> what it held before a move
};

// Where control leaves a region of code early, with the state at that point.
struct Exits {
  std::vector<State> breaks;
  std::vector<State> continues;
  size_t level = 0;  // blockLocals level of the loop body
};

struct Walk {
  const hir::Program& prog;
  const base::SourceMap& sources;
  diag::Sink& sink;
  const Target& target;
  smt::TermStore terms;
  smt::Solver solver;
  std::vector<Transfer> transfers;
  const hir::Function* fn = nullptr;
  // >0 while computing loop invariants: facts are gathered, nothing reported.
  int silent = 0;
  std::vector<Exits*> loops;
  // Source variables worth printing in counterexamples, with their terms.
  std::vector<Term> shown;
  // Names variables have in counterexamples: the source name, primed only
  // when one function has two (`i`, `i'`); the term store is shared by all
  // functions, so its own names carry primes from earlier functions.
  std::map<std::string, std::string> display;
  std::vector<std::string> displayUsed;
  // Integer constraints that hold everywhere (type ranges of inputs).
  Term assumptions;
  // Reported (code, span) pairs: a loop body is walked several times.
  std::vector<std::tuple<std::string, uint32_t, uint32_t>> reported;
  // The walk's own budget: statements walked (loop bodies are walked several
  // times, nested loops multiply) and formula size. Past it the function is
  // reported as not proved (W6900) instead of being walked on.
  uint64_t steps = 0;
  uint64_t stepLimit = 200'000;
  std::chrono::steady_clock::time_point deadline;
  size_t termLimit = 0;
  bool exhausted = false;
  // Sets `exhausted` once a limit is passed; the clock is read every call
  // (a statement of a loop body under a fixpoint can cost milliseconds).
  bool overBudget() {
    if (!exhausted && (steps > stepLimit || terms.size() > termLimit ||
                       std::chrono::steady_clock::now() > deadline))
      exhausted = true;
    return exhausted;
  }
  // Locals declared per open block, innermost last (for scope-end checks).
  std::vector<std::vector<hir::LocalId>> blockLocals;

  Walk(const hir::Program& p, const base::SourceMap& s, diag::Sink& k, const Target& t,
       smt::SolverLimits limits)
      : prog(p), sources(s), sink(k), target(t), solver(terms, limits) {
    assumptions = terms.tru();
  }
  const hir::TypeTable& types() const { return prog.types; }
};

// ---- state operations (OwnState.cpp) ----
Term get(const std::map<uint32_t, Term>& m, uint32_t k, Term dflt);
// The state that is `a` where a.pc holds and `b` where b.pc holds.
State merge(Walk& w, const State& a, const State& b);
State mergeAll(Walk& w, const std::vector<State>& states, const State& unreachable);
State unreachable(Walk& w, const State& like);
// Is `cond` possible under `s`? Unknown counts as possible (and is reported
// by the caller as W6900).
smt::Verdict possible(Walk& w, const State& s, Term cond, smt::Model* model = nullptr);
// A counterexample note only when the violation depends on the path taken
// (`cond` is possible but not certain); empty otherwise.
std::string pathNote(Walk& w, const State& s, Term cond, const smt::Model& m);
// The formula "token value v holds a transfer still in flight".
Term live(Walk& w, const State& s, const TokenVal& v);
bool isTokenType(const Walk& w, hir::TypeId t);
bool isMoveOnly(const Walk& w, hir::TypeId t);
std::string localName(const Walk& w, hir::LocalId l);
std::string sourceText(const Walk& w, base::Span s);

// ---- scalar values (OwnValues.cpp) ----
// The symbolic value of an integer or bool expression; a fresh variable for
// what cannot be expressed.
Term valueOf(Walk& w, State& s, hir::ExprId e);
Term freshFor(Walk& w, hir::LocalId l);
Term rangeOf(Walk& w, hir::TypeId t, Term x);

// ---- the walk (OwnWalk.cpp, OwnLoops.cpp) ----
void walkBlock(Walk& w, State& s, hir::BlockId b);
void walkStmt(Walk& w, State& s, hir::StmtId id);
// Evaluates an expression for its effects; a token-typed result is returned.
std::optional<TokenVal> walkExpr(Walk& w, State& s, hir::ExprId e);
void walkFor(Walk& w, State& s, const hir::Stmt& st);
void walkWhile(Walk& w, State& s, const hir::Stmt& st);

// ---- effects (OwnEffects.cpp) ----
enum class Access { Read, Write, Move, Free };
std::optional<Region> regionOf(Walk& w, State& s, hir::ExprId place);
// Checks an access to `r` against every transfer in flight (E6004-E6006).
void checkAccess(Walk& w, State& s, const Region& r, Access a, base::Span at);
// A call's effects, after its arguments were evaluated.
std::optional<TokenVal> applyCall(Walk& w, State& s, const hir::Expr& call,
                                  std::vector<std::optional<TokenVal>>& args);
// Consumes a token value (wait, pass by value, return): E6002. `completes`
// is false for a return: the obligation leaves, the copy is still in flight.
void consume(Walk& w, State& s, const TokenVal& v, base::Span at, const std::string& name,
             hir::ExprId site, bool completes = true);
// Drop checks: E6003 when `v` may still hold a live token.
void checkDropped(Walk& w, State& s, const TokenVal& v, base::Span at, const std::string& name,
                  int how);
void useLocal(Walk& w, State& s, hir::LocalId l, base::Span at, bool moves);
// E6008 among one call's arguments.
void checkArgBorrows(Walk& w, State& s, const hir::Expr& call);

// ---- reporting (OwnReport.cpp) ----
bool shouldReport(Walk& w, const char* code, base::Span at);
std::string counterexample(Walk& w, const smt::Model& m);
void reportUnknown(Walk& w, base::Span at, const std::string& what);

// ---- footprint (OwnFootprint.cpp) ----
void checkFootprint(Walk& w, const hir::Function& f);

}  // namespace vx::check::own
