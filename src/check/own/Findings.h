// What the analysis hands to reporting: candidate violations, each a formula
// that is satisfiable exactly when the violation can happen, with what a
// message needs. The analysis never renders a diagnostic; Report.cpp decides
// each finding with the solver after the function's walk, one rule per file
// (Rule*.cpp), as rustc_borrowck keeps its dataflow apart from diagnostics/.
#pragma once

#include <string>
#include <vector>

#include "base/Source.h"
#include "check/cir/Cir.h"
#include "check/own/Model.h"
#include "smt/Solver.h"

namespace vx::check::own {

enum class Rule : uint8_t {
  UseAfterMove,   // E6001
  ConsumedTwice,  // E6002
  BehindRef,      // E6002: a token consumed through a reference
  Dropped,        // E6003
  StaleRead,      // E6004
  HazardWrite,    // E6005
  SourcePinned,   // E6006
  Conflict,       // E6008
  Footprint,      // E6007
  BlockBounds,    // E6009: a block may fall outside its tensor
  GridRace,       // E6010: two instances of a grid may touch one element, one writing
  MoveOut,        // E6014: a buffer moved out of a slot, an element or a reference, to be kept
};

using cir::DropHow;
enum class AccessHow : uint8_t { Read, Write, Move, Free, CopyWrite, CopyRead };

struct Finding {
  Rule rule;
  base::Span at;
  Term bad;                       // pc ∧ violation: satisfiable = it can happen
  std::string subject;            // the place or token, as written
  std::string other;              // the other place (hazards, conflicts)
  DropHow drop = DropHow::ScopeEnd;
  AccessHow access = AccessHow::Read;
  bool viaDst = false;            // hazards: the place is the copy's destination
  bool otherMut = false;          // conflicts: the other borrow is mutable
  bool assigned = false;          // conflicts: an assignment to a variable a live reference points into
  bool laterInExpression = false; // conflicts: the other borrow is a temporary of an enclosing expression
  bool freedTemporary = false;    // conflicts: the place dropped is a temporary (Rust: "temporary value dropped while borrowed")
  bool intoTuple = false;         // conflicts: a buffer moved into a tuple that also borrows it
  TransferId transfer = UINT32_MAX;  // the copy involved (hazards, drops)
  Holds holds;                    // drops and double consumption: what the token may hold
  Term pc;                        // where the finding's point is reached
  std::string holder;             // the token variable holding the copy here ("" if none)
  std::vector<std::pair<std::string, Term>> holders;  // candidates, each under its condition
  base::Span related;             // a secondary span (a callee's access, the other borrow)
  std::string relatedLabel;
  std::vector<base::Span> earlier;  // where it was consumed or moved before (E6001, E6002)
  std::vector<Term> earlierGuards;  // ... each when it happened: the one on the counterexample's path is shown
  bool earlierIteration = false;  // ... in an earlier iteration of a loop
  bool inLoop = false;
  std::string type;               // E6001: the moved value's type
  std::vector<smt::Shown> show;   // source values printed from the model
  Term slotRead, slotInFlight;    // hazards on slots: the two indices
  Term condition;                 // the violation without the path (for "on the path" notes)
  // E6007: the memory space, the bytes in use and the buffers live.
  struct Footprint {
    hir::MemSpace space = hir::MemSpace::VMEM;
    uint64_t used = 0, capacity = 0, callee = 0;
    std::vector<std::pair<base::Span, uint64_t>> live;
    bool recursion = false;  // a recursive call: the footprint grows with each level
  } footprint;
  // E6009: the `block` call; its rows and columns as the message words them.
  hir::ExprId site;
  // E6010: the other instance's access, and each instance's indices
  // (name, term) with the element both touch.
  base::Span otherAt;
  AccessHow otherAccess = AccessHow::Read;
  std::vector<std::pair<std::string, Term>> instance, otherInstance;
  std::vector<Term> element;
};

}  // namespace vx::check::own
