// The ownership checker's analysis of one function: the context, function
// summaries, and the walk's entry points (one file per construct). The walk
// is a symbolic execution of structured HIR over the states of Model.h; it
// records Findings and never reports (Report.cpp does, after the walk).
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "check/Ownership.h"
#include "check/own/Findings.h"
#include "check/own/Model.h"
#include "smt/Solver.h"
#include "target/Target.h"

namespace vx::check::own {

// ---- function summaries (Summaries.cpp) ----
// What a call does, seen from the caller, in terms of the callee's
// parameters. Variables of the callee other than its parameters' values and
// lengths are renamed at every call.
struct ParamPlace {
  uint32_t param;  // a reference parameter
  Term index;      // a slot of it, or invalid: the whole
  Term guard;
  std::string text;
};

struct SummaryAccess {
  ParamPlace place;
  AccessHow how;             // Read, Write, Move, CopyRead, CopyWrite
  // Per token parameter: its copy is still in flight at the access.
  std::vector<std::pair<uint32_t, Term>> tokenLive;
  base::Span at;             // in the callee
};

struct SummaryCopy {
  bool fromParam = false;    // the copy handed in as token parameter `param`
  uint32_t param = 0;
  hir::Builtin kind = hir::Builtin::None;  // else: a copy the callee started
  std::vector<ParamPlace> reads, writes;
  bool anyPlace = false;
  base::Span span;
  Term guard;                // the result holds it, still in flight
};

struct SummaryToken {
  uint32_t path = 0;         // component of the result (0: the result itself)
  std::vector<SummaryCopy> copies;
};

struct Summary {
  bool computed = false;
  bool top = false;                     // recursion: anything a call could do
  std::vector<Term> paramValues;        // per parameter: its value (scalars)
  std::vector<Term> paramLens;          // per parameter: its length (references to Vec)
  std::vector<SummaryAccess> accesses;  // accesses to places of reference parameters
  std::vector<Term> completes;          // per token parameter: the callee waited its copy
  Term returns;                         // the call returns (it did not trap or loop forever)
  std::vector<SummaryToken> result;     // the copies the returned tokens hold
  uint64_t peak[4] = {0, 0, 0, 0};      // on-chip bytes at most, per MemSpace
  std::vector<Term> internals;          // renamed at each call
};

// ---- facts read off the syntax once per function (Facts.cpp) ----
struct LoopInfo {
  Changed changed;                        // what the loop may change of the outside
  std::vector<hir::ExprId> sites;         // calls in it that start copies or return tokens
  std::map<uint32_t, std::vector<smt::Int128>> constants;  // int local -> constants it meets
  std::map<uint32_t, std::vector<uint32_t>> partners;      // int local -> unchanged locals it is compared with
  unsigned carried = 0;                   // token locations it carries across iterations
};

struct FnFacts {
  std::set<uint32_t> addressTaken;        // scalar locals behind a `&mut`: not tracked
  std::map<uint32_t, uint32_t> refDef;    // reference local -> where it is bound (offset)
  std::map<uint32_t, uint32_t> refLastUse;  // -> its last use, loops taken into account
  std::map<uint32_t, LoopInfo> loops;     // by StmtId
  std::map<uint32_t, uint32_t> declaredAt;  // local -> offset of its binding
};
FnFacts computeFacts(const hir::Program& prog, const hir::Function& f);

// Records the token states after statement `stmt` (Observe.cpp).
void observeStates(struct Analysis& a, const State& s, base::Span stmt);
// The observations as TokenStates (line markers unresolved).
std::vector<TokenState> observedStates(const struct Analysis& a);

struct LoopFrame {
  std::vector<State> breaks, continues;
  size_t scopeLevel = 0;
};

struct Analysis {
  const hir::Program& prog;
  const base::SourceMap& sources;
  target::TargetKind target;
  TermStore& terms;
  smt::Solver& solver;
  std::vector<Summary>& summaries;  // by FnId
  const hir::Function& fn;
  uint32_t fnIndex;
  Summary& summary;                 // this function's, being built
  FnFacts facts;

  std::vector<Transfer> transfers;
  std::vector<Finding> findings;
  int silent = 0;                   // >0: a walk that gathers facts and finds nothing
  bool bindingBorrow = false;       // walking `&x` that a `let` or `=` keeps in a variable
  std::vector<LoopFrame*> loops;
  std::vector<hir::LocalId> loopVars;  // induction variables of the enclosing `for`s
  std::vector<State> exits;         // at every `return` and the end of the body
  std::vector<Value> exitValues;    // what each exit returns
  std::vector<std::vector<hir::LocalId>> scopes;  // locals per open block
  Term assumptions;                 // ranges of the variables of the walk
  Term trapFacts;                   // what holds of executions that did not trap (indices in bounds)
  std::map<uint32_t, Term> lens;    // root local -> its length (Vec)
  std::map<uint32_t, int> paramOf;  // parameter local -> its index
  std::map<int, TransferId> paramCopy;  // token parameter index -> its copy
  std::vector<smt::Shown> inputs;   // parameters' values and lengths, for counterexamples
  std::set<std::string> usedNames;  // variable names already given out in this function

  // Statements known to be plain scalar code (see plainStmt in Stmts.cpp).
  std::unordered_map<uint32_t, bool> plain;

  // Budget: statements walked, formula size, wall clock.
  uint64_t steps = 0, stepLimit = 200'000;
  size_t termLimit = 0;
  std::chrono::steady_clock::time_point deadline;
  bool exhausted = false;
  const std::atomic<bool>* cancel = nullptr;  // OwnershipOptions::cancel
  // Token states after each statement (Observe.cpp), when asked for.
  struct Observed {
    base::Span stmt;
    std::string name;
    bool buffer = false;
    std::set<std::string> copies;  // "into `slots[1]`|12-offset marker"
    bool always = true;            // every walk: in flight
    bool inflight = false;         // some walk: in flight
    bool held = false;             // some walk: a copy held, none in flight (waited)
  };
  bool observe = false;
  std::map<std::pair<uint32_t, std::string>, Observed> observed;  // (statement end, name)
  bool overBudget() {
    if (cancel && cancel->load(std::memory_order_relaxed)) throw smt::Cancelled{};
    if (!exhausted && (steps > stepLimit || terms.size() > termLimit || std::chrono::steady_clock::now() > deadline))
      exhausted = true;
    return exhausted;
  }

  Analysis(const hir::Program& p, const base::SourceMap& s, target::TargetKind t, TermStore& ts, smt::Solver& sv,
           std::vector<Summary>& sums, const hir::Function& f, uint32_t index)
      : prog(p), sources(s), target(t), terms(ts), solver(sv), summaries(sums), fn(f), fnIndex(index),
        summary(sums[index]) {
    assumptions = ts.tru();
    trapFacts = ts.tru();
  }
  const hir::TypeTable& types() const { return prog.types; }
  bool reporting() const { return silent == 0 && !exhausted; }
};

// ---- types (Values.cpp) ----
bool isToken(const Analysis& a, hir::TypeId t);
bool hasTokens(const Analysis& a, hir::TypeId t);  // a token, or a tuple with one
bool isMoveOnly(const Analysis& a, hir::TypeId t);
bool isRef(const Analysis& a, hir::TypeId t);
bool isScalar(const Analysis& a, hir::TypeId t);   // an integer or bool
std::string localName(const Analysis& a, hir::LocalId l);
std::string sourceText(const Analysis& a, base::Span s);

// ---- scalar values (Values.cpp) ----
// The value of an integer or bool expression under `s` (no effects).
Term valueOf(Analysis& a, State& s, hir::ExprId e);
// A new unknown value of type `t`, named for counterexamples.
Term freshValue(Analysis& a, hir::TypeId t, const std::string& name);
Term lenOf(Analysis& a, hir::LocalId root);

// ---- places (Places.cpp) ----
// The places an expression denotes (a place expression, a reference, a
// borrow). Empty when it is not a place of a buffer.
std::vector<Alt> placesOf(Analysis& a, State& s, hir::ExprId e);
Term alias(TermStore& t, const Place& x, const Place& y);
// Checks an access to `places` against the copies in flight (E6004-E6006)
// and live borrows (E6008). `via`: the reference local it goes through.
void access(Analysis& a, State& s, const std::vector<Alt>& places, AccessHow how, base::Span at,
            hir::LocalId via = {});
// The accesses a callee makes (from its summary) at a call: a copy handed
// to it conflicts only where `stillLive` (the callee has not waited it).
void accessThroughCall(Analysis& a, State& s, const std::vector<Alt>& places, AccessHow how, base::Span at,
                       const Holds& stillLive, base::Span related, const std::string& label);
// E6008 only: `places` accessed while a borrow held in a variable is live.
void checkLoans(Analysis& a, State& s, const std::vector<Alt>& places, AccessHow how, base::Span at,
                hir::LocalId via);
bool liveAt(const Analysis& a, uint32_t ref, uint32_t offset);
// Records an access to a parameter's place in the summary being built.
void recordForCaller(Analysis& a, State& s, const std::vector<Alt>& places, AccessHow how, base::Span at);

// ---- the walk (Stmts.cpp, Exprs.cpp, Loops.cpp, Calls.cpp) ----
void walkBlock(Analysis& a, State& s, hir::BlockId b);
void walkStmt(Analysis& a, State& s, hir::StmtId id);
Value walkExpr(Analysis& a, State& s, hir::ExprId e);
void walkFor(Analysis& a, State& s, hir::StmtId id);
void walkWhile(Analysis& a, State& s, hir::StmtId id);
Value walkCall(Analysis& a, State& s, hir::ExprId call);
// Moves or uses a local (E6001).
void useLocal(Analysis& a, State& s, hir::LocalId l, base::Span at, bool moves);
// Consumes a token value: E6002 when it may hold nothing live. `completes`:
// the copy is done (wait); false when the obligation leaves (return, a call).
void consume(Analysis& a, State& s, const Value& v, base::Span at, const std::string& name, bool completes);
// E6003 when `v` may still hold a copy in flight.
void dropValue(Analysis& a, State& s, const Value& v, base::Span at, const std::string& name, DropHow how);
// Binds a value to a token location (and its components).
void bindValue(Analysis& a, State& s, Loc l, hir::TypeId t, const Value& v);
// Takes the value out of a location (moving its tokens).
Value takeValue(Analysis& a, State& s, Loc l, hir::TypeId t, const std::string& name);
Value peekValue(const Analysis& a, const State& s, Loc l, hir::TypeId t);
// A new copy, in flight and held by the returned value.
Value startCopy(Analysis& a, State& s, Transfer t);
// Is `cond` possible under `s`? Unknown counts as possible.
bool possible(Analysis& a, const State& s, Term cond);
// The token variable that holds copy `k` in `s` ("" if none).
std::string holderOf(Analysis& a, const State& s, TransferId k);
// Every token variable that may hold copy `k` in `s`, with the condition.
std::vector<std::pair<std::string, Term>> holdersOf(Analysis& a, const State& s, TransferId k);
// Source values to print with a finding about `cond`.
std::vector<smt::Shown> shownFor(Analysis& a, const State& s, Term cond);
void addFinding(Analysis& a, const State& s, Finding f, Term cond);

// ---- summaries (Summaries.cpp) ----
void beginSummary(Analysis& a, State& entry);
void finishSummary(Analysis& a, const State& exit, const Value& result);
Value applySummary(Analysis& a, State& s, hir::ExprId call, const Summary& sum, std::vector<Value>& args);
void makeTopSummary(const hir::Program& prog, TermStore& t, Summary& sum, const hir::Function& f, uint32_t index);

// ---- loops: widening (Loops.cpp) ----
// `s` with every fact of `changed` replaced by an unknown; copies held by a
// changed location become copies of unknown slots started at `sites`.
State widen(Analysis& a, const State& s, const LoopInfo& info, hir::StmtId loop);

// ---- footprint (Footprint.cpp) ----
void checkFootprint(Analysis& a, diag::Sink& sink);

// ---- reporting (Report.cpp) ----
void report(Analysis& a, diag::Sink& sink);

}  // namespace vx::check::own
