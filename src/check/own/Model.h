// The abstract state of the ownership checker (docs/checker.md) and its
// lattice. A state describes, at one program point, a set of concrete states
// by formulas over source values and branch conditions: which copies are in
// flight, which token location holds which copy, what has been moved, where
// references point, and the values of integer and boolean locations. Joins
// are exact (an if-then-else on the branch conditions); widening replaces
// the facts a loop changes by unknowns.
//
// The state is a product of fact components (Components.h): each kind of
// fact has its join, order, widening and forgetting written once, so a new
// kind of fact (event generations, ranks) is one more component, not edits
// across the analysis. Message-only data (where copies were consumed, where
// locals were moved) lives in a side table that is joined by union and
// never decides anything.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "base/FlatMap.h"
#include "base/Source.h"
#include "check/cir/Cir.h"
#include "hir/Hir.h"
#include "smt/Term.h"

namespace vx::check::own {

using smt::Term;
using smt::TermStore;
using TransferId = uint32_t;

// A location: a core-IR local, or a component of a tuple local (`path`
// packs component indices + 1, one per byte, outermost in the lowest byte).
struct Loc {
  uint32_t local = 0;
  uint32_t path = 0;
  friend bool operator<(Loc a, Loc b) { return a.local != b.local ? a.local < b.local : a.path < b.path; }
  friend bool operator==(Loc a, Loc b) { return a.local == b.local && a.path == b.path; }
  friend bool operator!=(Loc a, Loc b) { return !(a == b); }
};
// The location of component `i` inside `l`; false when nested too deeply.
bool childLoc(Loc l, uint32_t i, Loc& out);
constexpr unsigned kLocDepth = 4;  // the tuple levels a location's path holds
// Is `inner` `outer` or inside it?
bool within(Loc inner, Loc outer);
// The same for component paths alone (Place::inner), and the path of
// component `i` inside `path`; false when nested too deeply.
inline bool innerWithin(uint32_t inner, uint32_t outer) { return within(Loc{0, inner}, Loc{0, outer}); }
inline bool childPath(uint32_t path, uint32_t i, uint32_t& out) {
  Loc c;
  if (!childLoc(Loc{0, path}, i, c)) return false;
  out = c.path;
  return true;
}

// A place a copy or an access touches: a root (a buffer location, or a
// location holding a reference received from the caller), whole or one
// slot along its leading dimension (`slots[i % 2]`, `tiles[i]`), and within
// the slot one sub-slot along the next (`r[0][1]`, `c[b][h]`). Deeper
// indices are dropped: a larger place is a sound approximation of a
// smaller one.
//
// A block (`block::<[R, C]>(a, r, c)`, grid.md §2) narrows the place to rows
// [row, row + rows) and columns [col, col + cols) of the root's last two
// dimensions (of its slot `index`, when it has one): two places of one root
// alias when their slots may be equal and their blocks may intersect.
struct Place {
  Loc root;
  Term index;        // invalid: the whole root
  // The index into the slot's own leading dimension (`c[b][h]`: slot `b`,
  // sub-slot `h`); invalid: the whole slot. Deeper indices are not kept:
  // the sub-slot stands for them.
  Term sub;
  Term row, col;     // invalid: no block
  uint64_t rows = 0, cols = 0;
  // Components of a tuple the root refers to without holding it (a
  // reference parameter's pointee: `q.0` of `q: &(A, B)`), packed as a
  // Loc's path; 0: all of it. A tuple the state holds has a location per
  // component instead (childLoc).
  uint32_t inner = 0;
  // `index` is a row of a 2-D tensor (`a[i]`): the dimension a block's
  // rows count, so a block of the tensor holds it when its rows do (alias).
  bool rowIndex = false;
  std::string text;  // as the user wrote it
  bool whole() const { return !index.valid() && !row.valid(); }
  bool blocked() const { return row.valid(); }
  void clearSlot() {
    index = sub = Term{};
    rowIndex = false;
  }
  void clearBlock() {
    row = col = Term{};
    rows = cols = 0;
  }
};
// `x` and `y` name the same place (the same terms).
bool samePlace(const Place& x, const Place& y);
// A formula: every element of `x` is one of `y` (roots equal, `y` whole or
// wider in its slot and block).
Term placeWithin(TermStore& t, const Place& x, const Place& y);
// The blocks of `x` and `y` (both blocked) intersect.
Term blocksOverlap(TermStore& t, const Place& x, const Place& y);

// A place under a condition: a reference may point to one of several.
struct Alt {
  Place place;
  Term guard;
};

enum class Origin : uint8_t {
  Call,   // started by a call in this function (or returned by a callee)
  Param,  // handed in by the caller as a token parameter: places unknown here
  Havoc,  // stands for whatever a loop location held iterations ago
  // Stands for a token taken where an error was already reported (E6002,
  // consumed through a reference): the analysis goes on with it as a token
  // of its own, consumed once and never reported dropped, so the one
  // mistake gives one error.
  Recovered,
};

// One copy: where it was started and what it reads and writes until its
// token is waited.
struct Transfer {
  Origin origin = Origin::Call;
  hir::ExprId site;                   // the call that started it
  hir::Builtin kind = hir::Builtin::None;
  std::vector<Alt> reads, writes;     // places the copy reads / writes
  bool anyPlace = false;              // may read and write every root (havoc, top summaries)
  base::Span span;                    // "started here"
  std::string name;                   // the token variable first bound to it
  int param = -1;                     // Param: index among the function's parameters
  uint32_t paramPath = 0;             // ... and the component of it (tuples)
  int iterationsAgo = 0;              // for messages: started in an earlier iteration
  // A copy that stands for several a loop's exits held in one location
  // (Loops.cpp, mergeCopies): each of them, for messages.
  struct Member {
    base::Span span;
    bool earlier = false;  // started in an earlier iteration
    std::string what;      // "into `slots[0]`" (copyWhat)
  };
  std::vector<Member> members;
  // The copies it stands for (every level of merged copies of merged
  // copies), and the call sites that started them: a loop's invariant
  // candidates that speak of one copy or of one site's copies must see
  // them inside a merged copy too (Loops.cpp, candidates).
  std::vector<TransferId> mergedFrom;
  std::vector<uint32_t> mergedSites;
};
// What a copy moves, for messages: "into `slots[(i + 1) % 2]`".
std::string copyWhat(const Transfer& t);

// Which copies a token value may hold, each under a formula.
using Holds = base::FlatMap<TransferId, Term>;

// Where a reference may point. `unknown`: anywhere (a reference whose
// target a loop changes without a known set of places).
struct RefVal {
  std::vector<Alt> alts;
  bool mut = false;
  bool unknown = false;
};

// What an operand or right-hand side yields where ownership cares.
struct Value {
  enum class Kind : uint8_t { None, Scalar, Token, Tuple, Ref };
  Kind kind = Kind::None;
  Term scalar;               // Scalar
  Holds holds;               // Token
  std::vector<Value> elems;  // Tuple
  RefVal ref;                // Ref
  std::string name;          // the location it came from, for messages
  Holds ghost;               // what that location held before it was emptied
  static Value token(Holds h) {
    Value v;
    v.kind = Kind::Token;
    v.holds = std::move(h);
    return v;
  }
  static Value ofScalar(Term t) {
    Value v;
    v.kind = Kind::Scalar;
    v.scalar = t;
    return v;
  }
};

// Where something happened, under the condition that it did.
struct Site {
  base::Span span;
  Term guard;
};

// Message-only data: where copies were consumed and locations moved or
// emptied. Joined by union; never part of a verdict.
struct Notes {
  base::FlatMap<TransferId, std::vector<Site>> consumedAt;
  base::FlatMap<Loc, std::vector<Site>> movedAt;
  base::FlatMap<Loc, std::vector<Site>> emptiedAt;  // a token moved out of a location
  base::FlatMap<Loc, Holds> ghosts;                 // what it held then
};

struct State {
  Term pc;                                   // the path condition: the state is reachable where it holds
  // The fact components (Components.h). Flat maps: the state is copied at
  // every branch (base/FlatMap.h).
  base::FlatMap<Loc, Term> scalars;          // integer and bool locations -> value
  base::FlatMap<Loc, Holds> tokens;          // token location -> copies it may hold
  base::FlatMap<TransferId, Term> inflight;  // copy -> not yet waited
  base::FlatMap<Loc, Term> moved;            // move-only location -> moved out (absent: not yet bound)
  base::FlatMap<Loc, RefVal> refs;           // reference location -> where it points
  Notes notes;
};

Term lookup(const base::FlatMap<Loc, Term>& m, Loc k, Term dflt);
Term lookup(const base::FlatMap<TransferId, Term>& m, TransferId k, Term dflt);
// "A location holding `h` holds a copy still in flight."
Term live(TermStore& t, const State& s, const Holds& h);

// Forgets copies no location holds any more (except those `keep` names):
// such a copy was dropped, which its drop point reports; a violation-free
// execution has none.
void collect(TermStore& t, State& s, const std::function<bool(TransferId)>& keep);

// ---- the lattice (Lattice.cpp, over the components of Components.h) ----
// The state that is `a` or `b` (exact). `which`, when given, holds on every
// path of `a` and on none of `b` (a branch condition).
State join(TermStore& t, const State& a, const State& b, Term which = {});
State joinAll(TermStore& t, const std::vector<State>& states, const State& like);
// ite(c, a, b) with the conjuncts `a` and `b` share taken out of the ite.
Term joinPathConditions(TermStore& t, Term c, Term a, Term b);
// The unreachable state shaped like `like` (the join's identity).
State bottom(TermStore& t, const State& like);
// A formula whose validity implies a ⊑ b: every concrete state of `a` is one
// of `b` (same values, and every may-fact of `a` also in `b`).
Term leq(TermStore& t, const State& a, const State& b);
// Forgets every fact about local `l` (its life ended, or begins anew).
void forgetLocal(State& s, uint32_t l);

// What a loop may change: the facts widening replaces by unknowns.
struct Changed {
  std::vector<Loc> scalars;         // int/bool locations
  std::vector<bool> scalarIsBool;
  std::vector<Loc> tokens;          // token locations assigned or consumed
  std::vector<Loc> moved;           // move-only locations moved or assigned
  std::vector<Loc> refs;            // reference locations reassigned
};

}  // namespace vx::check::own
