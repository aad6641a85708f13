// The ownership checker's analysis of one function: the context, function
// summaries, and the walk's entry points (one file per construct). The walk
// is a symbolic execution of the function's core IR (check/cir/Cir.h) over
// the states of Model.h; it records Findings and never reports (Report.cpp
// does, after the walk).
#pragma once

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "check/Ownership.h"
#include "check/cir/Cir.h"
#include "check/own/Findings.h"
#include "check/own/Model.h"
#include "smt/Solver.h"
#include "target/Target.h"

namespace vx::check::own {

// ---- function summaries (Summaries.cpp) ----
// What a call does, seen from the caller, in terms of the callee's
// parameters. Variables of the callee other than its parameters' values and
// lengths are renamed at every call.
// A parameter, or a component of a tuple parameter.
struct ParamLoc {
  uint32_t param = 0;
  uint32_t path = 0;
  friend bool operator<(ParamLoc a, ParamLoc b) { return a.param != b.param ? a.param < b.param : a.path < b.path; }
  friend bool operator==(ParamLoc a, ParamLoc b) { return a.param == b.param && a.path == b.path; }
};

struct ParamPlace {
  ParamLoc root;   // a reference parameter (or a reference inside a tuple parameter)
  Term index;      // a slot of it, or invalid: the whole
  Term guard;
  std::string text;
  Term row, col;   // a block of it (relative to what the argument points to), or invalid
  uint64_t rows = 0, cols = 0;
  uint32_t inner = 0;  // components of the tuple it points to (Place::inner)
};
// The parameter place of `place` (a place of parameter `root`).
ParamPlace paramPlace(ParamLoc root, const Place& place, Term guard);

struct SummaryAccess {
  ParamPlace place;
  AccessHow how;             // Read, Write, Move, CopyRead, CopyWrite
  // Per token parameter: its copy is still in flight at the access.
  std::vector<std::pair<ParamLoc, Term>> tokenLive;
  base::Span at;             // in the callee
};

struct SummaryCopy {
  bool fromParam = false;    // the copy handed in as token parameter `param`
  ParamLoc param;
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
  // The integers and bools inside tuple parameters: (parameter, path, value).
  struct ParamPart {
    uint32_t param;
    uint32_t path;
    Term value;
  };
  std::vector<ParamPart> paramParts;
  std::vector<Term> paramLens;          // per parameter: its length (references to Vec)
  std::vector<SummaryAccess> accesses;  // accesses to places of reference parameters
  // Per token parameter (or token inside a tuple parameter): the callee
  // waited its copy.
  std::vector<std::pair<ParamLoc, Term>> completes;
  Term returns;                         // the call returns (it did not trap or loop forever)
  std::vector<SummaryToken> result;     // the copies the returned tokens hold
  Term value;                           // a returned integer or bool, in terms of the parameters
  // The integers and bools inside a returned tuple: (path, value).
  std::vector<std::pair<uint32_t, Term>> valueParts;
  // A returned reference: where it points, in terms of the parameters'
  // places (`refsKnown` false: anywhere its reference arguments point).
  std::vector<ParamPlace> refs;
  bool refsKnown = false;
  uint64_t peak[4] = {0, 0, 0, 0};      // on-chip bytes at most, per MemSpace
  std::vector<Term> internals;          // renamed at each call
};

// ---- facts read off the core IR once per function (Facts.cpp) ----
// An integer expression of constants and locals (`(2 * s + 2) * BM`), as
// the loop's candidates rebuild it over the state before the loop: nodes
// in post-order, the last one the root.
struct BoundNode {
  enum class Kind : uint8_t { Const, Loc, Add, Sub, Mul } kind = Kind::Const;
  smt::Int128 value = 0;  // Const
  Loc loc;                // Loc
  int32_t a = -1, b = -1;  // Add, Sub, Mul: operand nodes
};
using BoundExpr = std::vector<BoundNode>;

struct LoopInfo {
  Changed changed;                        // what the loop may change of the outside
  std::vector<uint32_t> sites;            // calls in it that start copies or return tokens (origin ExprIds)
  std::map<Loc, std::vector<smt::Int128>> constants;  // int location -> constants it meets
  std::map<Loc, std::vector<Loc>> partners;           // int location -> unchanged ones it is compared with
  // int location -> expressions of unchanged locals it is compared with
  // (`while r != (2 * s + 2) * BM`)
  std::map<Loc, std::vector<BoundExpr>> boundExprs;
  unsigned carried = 0;                   // token locations it carries across iterations
};

struct FnFacts {
  std::set<uint32_t> addressTaken;        // scalar locals behind a `&mut`: not tracked
  std::set<uint32_t> mutBorrowed;         // locals any part of which is behind a `&mut` (`&mut q`, `&mut q.0`)
  std::vector<LoopInfo> loops;            // by LoopId
  // Loans: per block and statement, the reference-holding user locals that
  // are used at or after it, and the temporaries used after it (CFG
  // liveness, NLL-style).
  std::vector<std::vector<std::vector<uint32_t>>> liveRefs;
  // A temporary's borrow: the reference local an access through it goes
  // through (`&*r`, `&mut (*r)[0]`), by temporary.
  std::unordered_map<uint32_t, Loc> viaOf;
  // Regions: for the function body (key UINT32_MAX) and each loop, its
  // blocks in topological order (nested loops collapsed to their heads).
  std::unordered_map<uint32_t, std::vector<uint32_t>> order;
};
FnFacts computeFacts(const hir::Program& prog, const cir::Body& body);

struct Analysis;
// Records the token states after a source statement (Observe.cpp).
void observeStates(Analysis& a, const State& s, base::Span stmt);
// The observations as TokenStates (line markers unresolved).
std::vector<TokenState> observedStates(const Analysis& a);

// The copies a loop's sites have started so far, by site: the roots they
// read and wrote (a loop's stand-ins for older copies take their places
// from these, Loops.cpp).
struct SitePlace {
  Place place;     // its root and text; `index` is the slot when every copy used the same constant one
  bool indexed = false;
  bool blocked = false;  // blocks of `place.rows` x `place.cols` (any block: their origins vary)
};
struct SitePlaces {
  std::vector<SitePlace> reads, writes;
  bool anyPlace = false;
};
// What a reference a loop reassigns has been seen to point to at the end
// of a walk of its body (Loops.cpp): the buffers, whole, or anywhere.
struct LoopRefTargets {
  std::vector<Loc> roots;
  bool anywhere = false;
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
  Summary summary;                  // this function's, being built (callers see it once finished)
  // Its accesses by all but their guard and line (recordForCaller): one
  // access the function reaches along several call paths (`f` calls `g` and
  // `h`, both call `k`), or one place several lines touch alike, is one
  // entry under the disjunction of their conditions, named by the first
  // line; one per path grew as the Fibonacci numbers down a chain of such
  // calls.
  std::unordered_map<std::string, size_t> accessIndex;
  std::vector<bool> accessDirect;  // per entry of summary.accesses: named by a statement of its own
  std::set<uint32_t> cycle;         // the functions of its recursive cycle (none: not recursive)
  const cir::Body& body;
  FnFacts facts;

  std::vector<Transfer> transfers;
  std::vector<Finding> findings;
  int silent = 0;                   // >0: a walk that gathers facts and finds nothing
  int loopDepth = 0;                // loops open around the walk
  std::vector<uint32_t> loopVars;   // induction variables of the enclosing `for`s
  std::vector<State> exits;         // at every `return`
  std::vector<Value> exitValues;    // what each exit returns
  Term assumptions;                 // ranges of the variables of the walk
  Term trapFacts;                   // what holds of executions that did not trap (indices in bounds)
  std::map<Loc, Term> lens;         // root location -> its length (Vec)
  // Integers read through a shared reference parameter (`*n`, `p.0` of
  // `p: &(usize, usize)`), by the parameter and the component path: what
  // it points to cannot change while the function runs (no `&mut` to it
  // exists then: E6008 at the caller), so every read has one value.
  std::map<std::pair<Loc, uint32_t>, Term> sharedReads;
  std::map<Loc, ParamLoc> paramOf;  // parameter location (a reference) -> the parameter
  std::map<ParamLoc, TransferId> paramCopy;  // token parameter -> its copy
  std::vector<smt::Shown> inputs;   // parameters' values and lengths, for counterexamples
  std::set<std::string> usedNames;  // variable names already given out in this function
  std::map<uint32_t, SitePlaces> sitePlaces;  // by call origin
  std::map<std::pair<uint32_t, Loc>, LoopRefTargets> loopRefs;  // by loop and reference location
  std::map<uint32_t, std::pair<Term, Term>> forRange;  // a `for` loop being run: its range

  // The `parallel` grid being walked (GridBegin .. GridEnd): what its
  // instance accesses of HBM, for E6010.
  struct GridAccess {
    Place place;
    AccessHow how;
    Term cond;      // the path to it and the place's guard
    base::Span at;
  };
  struct GridWalk {
    bool active = false;
    // The variables of the code around the grid (shared by every instance);
    // every other variable of an access is the instance's own.
    std::set<uint32_t> outer;
    std::vector<std::pair<std::string, Term>> vars;  // its indices
    std::vector<GridAccess> accesses;
    // Locals numbered from here are the instance's own (its indices come
    // first); those before belong to the code around the grid.
    uint32_t firstInner = 0;
  } grid;
  // `block` calls met by reporting walks (by ExprId), and those whose
  // bounds some walk could not prove (E6009 or a run-time check).
  std::set<uint32_t> blockSites;
  std::vector<uint32_t> provedBlocks;  // out of report(): sites with every bound proved

  // Where the walk is: the block and statement (for loans).
  uint32_t curBlock = 0, curStmt = 0;

  // Budget: statements walked, formula size, wall clock.
  uint64_t steps = 0, stepLimit = 200'000;
  size_t termLimit = 0;
  std::chrono::steady_clock::time_point deadline;
  bool exhausted = false;
  // A local whose type nests tuples deeper than a location's path holds
  // (Model.h, childLoc) around a token, a buffer or a reference: the state
  // cannot follow it, so nothing in the function is decided (W6900).
  base::Span tooDeep;
  bool tooWide = false;  // the tuple there has more than 255 components (not deeper than kLocDepth)
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
    // The solver's budget too: past it every query is unknown, and walking
    // on only asks more of them (twelve nested loops walked for 120 s).
    if (!exhausted && (steps > stepLimit || terms.size() > termLimit || solver.functionBudgetSpent() ||
                       std::chrono::steady_clock::now() > deadline)) {
      exhausted = true;
      if (std::getenv("VX_DEBUG_BUDGET"))
        std::fprintf(stderr, "budget: steps %llu/%llu terms %zu/%zu clock %d\n", (unsigned long long)steps,
                     (unsigned long long)stepLimit, terms.size(), termLimit,
                     std::chrono::steady_clock::now() > deadline ? 1 : 0);
    }
    return exhausted;
  }

  Analysis(const hir::Program& p, const base::SourceMap& s, target::TargetKind t, TermStore& ts, smt::Solver& sv,
           std::vector<Summary>& sums, const hir::Function& f, uint32_t index, const cir::Body& b)
      : prog(p), sources(s), target(t), terms(ts), solver(sv), summaries(sums), fn(f), fnIndex(index),
        body(b) {
    assumptions = ts.tru();
    trapFacts = ts.tru();
  }
  const hir::TypeTable& types() const { return prog.types; }
  bool reporting() const { return silent == 0 && !exhausted; }
  // What each type is to ownership (Values.cpp, typeFlags), by TypeId:
  // asked at every operand, so kept.
  mutable std::vector<uint8_t> typeFlags;
};

// ---- types (Values.cpp) ----
bool isToken(const Analysis& a, hir::TypeId t);
bool hasTokens(const Analysis& a, hir::TypeId t);  // a token, or a tuple with one
bool isMoveOnly(const Analysis& a, hir::TypeId t); // a buffer: Tensor, Vec, Pinned
bool isRef(const Analysis& a, hir::TypeId t);
bool hasRefs(const Analysis& a, hir::TypeId t);  // a reference, or a tuple with one
bool isScalar(const Analysis& a, hir::TypeId t);   // an integer or bool
std::string locName(const Analysis& a, Loc l);     // `t`, `pair.0`; "" for a temporary
std::string sourceText(const Analysis& a, base::Span s);

// ---- scalar values (Values.cpp) ----
// The value of an operand (a scalar, a reference, a tuple of them; tokens
// and buffers are taken by moves, Operands.cpp).
Term constValue(Analysis& a, hir::ExprId e);
hir::TypeId operandType(const Analysis& a, const cir::Operand& o);
// A new unknown value of type `t`, named for counterexamples.
// `base`, or `base` with primes: a name no other shown value has.
std::string uniqueName(Analysis& a, const std::string& base);
Term freshValue(Analysis& a, hir::TypeId t, const std::string& name);
Term lenOf(Analysis& a, Loc root);
// The value of a scalar location, made up (and kept) the first time.
Term scalarAt(Analysis& a, State& s, Loc l, hir::TypeId t);
// The scalar result of a right-hand side over scalars (Binary, Unary, Cast):
// Rust's arithmetic, with the facts of executions that did not trap
// (no overflow, no division by zero) added to the path.
Term scalarOp(Analysis& a, State& s, const cir::Stmt& st, Term x, Term y);
Term castValue(Analysis& a, Term x, hir::TypeId from, hir::TypeId to);

// ---- places (Places.cpp) ----
// The location a place names when it has only field projections.
bool locOf(const Analysis& a, const cir::Place& p, Loc& out);
bool locOf(const cir::Body& body, const cir::Place& p, Loc& out);
// The type of the value at a location.
hir::TypeId typeAt(const hir::TypeTable& tt, const cir::Body& body, Loc l);
// The buffers a place denotes (through references and indices). Empty
// when it is not a place of a buffer.
std::vector<Alt> placesOf(Analysis& a, State& s, const cir::Place& p);
// The places a reference value points to ("anywhere" spelled out).
// All of the value at `l` (a buffer, a tensor parameter's pointee).
Alt wholeAt(Analysis& a, Loc l, Term guard);
// The roots of the places a reference may point to, added to `roots` once each.
void addRoots(TermStore& t, const RefVal& ref, std::vector<Loc>& roots);
std::vector<Alt> pointsTo(Analysis& a, const State& s, const RefVal& r);
Term alias(TermStore& t, const Place& x, const Place& y);
// Checks an access to `places` against the copies in flight (E6004-E6006)
// and live borrows (E6008). `via`: the reference local it goes through.
// `assignment`: the write is an assignment (`m.0 = 2` through `m = &mut s`),
// reported as one where it meets a borrow.
void access(Analysis& a, State& s, const std::vector<Alt>& places, AccessHow how, base::Span at, Loc via,
            bool assignment = false);
// An operand an operation reads through (`&x + &y`: the places `&x` points
// to), checked as a builtin's Read argument; nothing for other operands.
void readThrough(Analysis& a, State& s, const cir::Operand& o, const Value& v);
// The accesses a callee makes (from its summary) at a call: a copy handed
// to it conflicts only where `stillLive` (the callee has not waited it).
void accessThroughCall(Analysis& a, State& s, const std::vector<Alt>& places, AccessHow how, base::Span at,
                       const Holds& stillLive, base::Span related, const std::string& label);
// E6008 only: `places` accessed while a borrow held in a variable is live.
// `handed`: locals whose loans the access is handed (a tuple passed to the
// same call), not checked against.
void checkLoans(Analysis& a, State& s, const std::vector<Alt>& places, AccessHow how, base::Span at, Loc via,
                const std::vector<uint32_t>& handed = {});
// The reference locations inside `places` (written with references the
// state does not follow): they point anywhere from now on.
void forgetRefsWithin(State& s, const std::vector<Alt>& places);
// The integers and bools within `places` take unknown values (written
// through a reference, or by a callee given a `&mut`); no places: a
// reference that points nowhere known, any local lent mutably.
void havocScalarsWithin(Analysis& a, State& s, const std::vector<Alt>& places);
// The reference a place goes through (`(*r).x`, `r.0[i]` through `r`): its
// root's fields up to the first dereference; kNoVia where there is none.
Loc derefBase(const cir::Body& body, const cir::Place& p);
// E6008 among the references one tuple holds (`(&mut s, &s)`), at `at`.
void checkTupleBorrows(Analysis& a, State& s, const cir::Stmt& st, const Value& tuple, base::Span at);
// An assignment to location `l` (named `text`) while a live reference
// points into it or into what holds it (E6008, "cannot assign"). Buffers
// are checked as writes by `access`.
void checkAssignLoans(Analysis& a, State& s, Loc l, const std::string& text, base::Span at);
// Records an access to a parameter's place in the summary being built.
// `direct`: made by the function's own statement at `at` (not a callee's,
// reached through a call): the line an entry merging both is named by.
// `stillLive`: for a callee's access, where each copy handed to it is not
// yet waited by it (accessThroughCall's); a copy it has waited is not live.
void recordForCaller(Analysis& a, State& s, const std::vector<Alt>& places, AccessHow how, base::Span at,
                     bool direct = true, const Holds* stillLive = nullptr);
constexpr Loc kNoVia{UINT32_MAX, 0};

// ---- operands and values (Operands.cpp) ----
// How an operand's value is used: read where it stands (an operator, a
// builtin that reads its by-value argument and returns something else), or
// kept (bound to a variable, assigned, returned, put in a tuple, passed to a
// user function, returned by `dbg`). A buffer behind a reference, an index or
// a block stays where it is, so it may only be read (E6014 otherwise).
enum class OperandUse : uint8_t { Kept, Read };
// Evaluates an operand: moves take tokens and buffers out of their places.
Value evalOperand(Analysis& a, State& s, const cir::Operand& o, OperandUse use = OperandUse::Kept);
// Checks that `l` (and what contains it) was not moved out (E6001);
// `moves`: this use moves it.
void useLoc(Analysis& a, State& s, Loc l, hir::TypeId t, base::Span at, bool moves);
// Consumes a token value: E6002 when it may hold nothing live. `completes`:
// the copy is done (wait); false when the obligation leaves (return, a call).
void consume(Analysis& a, State& s, const Value& v, base::Span at, const std::string& name, bool completes);
// E6003 when `v` may still hold a copy in flight.
void dropValue(Analysis& a, State& s, const Value& v, base::Span at, const std::string& name, cir::DropHow how);
// Binds a value to a location (and its components).
void bindValue(Analysis& a, State& s, Loc l, hir::TypeId t, const Value& v);
// Takes the value out of a location (moving its tokens).
Value takeValue(Analysis& a, State& s, Loc l, hir::TypeId t, const std::string& name);
Value peekValue(Analysis& a, State& s, Loc l, hir::TypeId t);
// A new copy, in flight and held by the returned value.
Value startCopy(Analysis& a, State& s, Transfer t);
// Is `cond` possible under `s`? Unknown counts as possible.
bool possible(Analysis& a, const State& s, Term cond);
// The token variable that holds copy `k` in `s` ("" if none).
std::string holderOf(Analysis& a, const State& s, TransferId k);
// Every token variable that may hold copy `k` in `s`, with the condition.
std::vector<std::pair<std::string, Term>> holdersOf(Analysis& a, const State& s, TransferId k);
void addFinding(Analysis& a, const State& s, Finding f, Term cond);
// The source values a counterexample of `cond` shows.
std::vector<smt::Shown> shownFor(Analysis& a, const State& s, Term cond);
// The value of a tensor dimension (a constant, or a run-time extent's
// hidden parameter).
Term dimTerm(Analysis& a, State& s, hir::TypeId dim);

// ---- grids (Grid.cpp) ----
// An instance begins: its indices, fresh, each below its extent.
void beginInstance(Analysis& a, State& s, const cir::Stmt& st);
// It ends: E6010 findings for every pair of its accesses, one writing,
// made by two distinct instances.
void endInstance(Analysis& a, State& s);
// Records an access to HBM (a parameter's place) of the instance walked.
void recordForGrid(Analysis& a, State& s, const std::vector<Alt>& places, AccessHow how, base::Span at);

// ---- the walk (Walk.cpp, Loops.cpp, Calls.cpp) ----
// Walks the function's body from its entry.
void walkFunction(Analysis& a, State& entry);
// What a region (a loop's body, from its head) leads to.
struct RegionResult {
  std::vector<State> back;   // states reaching the loop's head again (end of the body, `continue`)
  std::vector<State> exits;  // states reaching its exit (`break`, a false condition)
};
// Walks the region of loop `loop` (the function's body when invalid) from
// `entry` at `start`; `iter` is the iteration of a `for` loop's head.
RegionResult walkRegion(Analysis& a, cir::LoopId loop, const State& entry, Term iter);
// A loop met by the walk: its exits, joined.
State runLoop(Analysis& a, cir::LoopId loop, const State& before);
// The effect of one statement.
void walkStmt(Analysis& a, State& s, const cir::Stmt& st);
// A call's effects; its value.
Value walkCall(Analysis& a, State& s, const cir::Stmt& st);

// ---- summaries (Summaries.cpp) ----
void beginSummary(Analysis& a, State& entry);
void finishSummary(Analysis& a);
// `reachable`: every place the arguments' references reach, those inside
// tuples included (where a returned reference may point, when the summary
// does not say).
Value applySummary(Analysis& a, State& s, const cir::Stmt& call, const Summary& sum, std::vector<Value>& args,
                   const std::vector<std::vector<Alt>>& argPlaces, const std::vector<Alt>& reachable);
void makeTopSummary(const hir::Program& prog, TermStore& t, Summary& sum, const hir::Function& f, uint32_t index);

// ---- loops: widening (Loops.cpp) ----
// `s` with every fact of `changed` replaced by an unknown; copies held by a
// changed location become copies of unknown slots started at the loop's
// sites.
State widen(Analysis& a, const State& s, cir::LoopId loop, const LoopInfo& info);

// ---- footprint (Footprint.cpp) ----
void checkFootprint(Analysis& a);

// ---- reporting (Report.cpp) ----
void report(Analysis& a, diag::Sink& sink);

}  // namespace vx::check::own
