// E6008: a place borrowed mutably while it (or a slot that may be the same)
// is borrowed — among the arguments of one call, or by a borrow held in a
// variable that is used later.
#include "check/own/Report.h"

namespace vx::check::own {

diag::Diagnostic renderConflict(const ReportContext& a, const Decided& d) {
  const Finding& f = d.f;
  (void)a;
  if (f.access == AccessHow::Move) {
    // A buffer moved while an enclosing call or operator has yet to use its
    // borrow (as Rust refuses a move out of a borrowed value), or moved into a
    // call that also borrows it.
    const bool later = f.laterInExpression, tuple = f.intoTuple;
    diag::Diagnostic out = later   ? diag::MoveOutWhileBorrowed(f.subject)
                           : tuple ? diag::MoveIntoTupleWhileBorrowed(f.subject)
                                   : diag::MoveWhileBorrowed(f.subject);
    out.primary(f.at, later ? "moved here" : tuple ? "moved into the tuple here" : "moved into the call here");
    if (f.related.valid()) out.secondary(f.related, f.relatedLabel);
    if (!d.counterexample.empty() && f.slotRead.valid()) out.note("z3 counterexample: " + d.counterexample);
    out.note(later   ? "the borrow is used after the move: it would reach a buffer that now belongs to someone else"
             : tuple ? "the tuple would own the buffer and hold a reference to it: what is done with one, the other sees"
                     : "the callee would own the buffer and hold a reference to it: what it does with one, the other sees");
    out.help(later   ? "move the buffer in a statement of its own, after the borrow's last use"
             : tuple ? "put a borrow in both places, or the buffer alone"
                     : "pass a borrow in both places, or move the buffer in a call of its own");
    return out;
  }
  if (f.assigned) {  // a variable (an integer, a reference, a token, a tuple) assigned while borrowed
    diag::Diagnostic out = diag::AssignWhileBorrowed(f.subject);
    out.primary(f.at, "`" + f.subject + "` is assigned here while the borrow is live");
    if (f.related.valid()) out.secondary(f.related, f.relatedLabel);
    out.note("a reference reads the variable it points to: assigned under it, what the reference reads and what the "
             "checker proves about it could differ");
    out.help("assign before the borrow, or after its last use");
    return out;
  }
  if (f.access == AccessHow::Free) {
    // A buffer freed (a temporary at the end of its statement, a variable
    // at the end of its block) while a reference to it is used later:
    // Rust's "temporary value dropped while borrowed" and "does not live
    // long enough".
    diag::Diagnostic out =
        f.freedTemporary ? diag::TemporaryDroppedWhileBorrowed() : diag::DroppedWhileBorrowed(f.subject);
    out.primary(f.at, f.freedTemporary ? "this temporary value is freed at the end of its statement while still in use"
                                       : "`" + f.subject + "` dropped here while still borrowed");
    if (f.related.valid()) out.secondary(f.related, f.relatedLabel);
    out.help(f.freedTemporary ? "bind the value with `let` first, so that it lives as long as its block"
                              : "declare the buffer in the block that uses the reference, or end the reference's use "
                                "within this block");
    return out;
  }
  bool mutHere = f.access == AccessHow::Write || f.access == AccessHow::CopyWrite || f.access == AccessHow::Move ||
                 f.access == AccessHow::Free;
  diag::Diagnostic out = f.otherMut && mutHere ? diag::ConflictingMutBorrows(f.subject)
                         : f.otherMut            ? diag::ConflictingSharedBorrow(f.subject)
                                                 : diag::ConflictingBorrows(f.subject);
  out.primary(f.at, mutHere ? "mutable borrow here" : "borrowed here");
  if (f.related.valid()) out.secondary(f.related, f.relatedLabel);
  if (!d.counterexample.empty() && f.slotRead.valid()) out.note("the slots may be the same: z3 counterexample: " + d.counterexample);
  out.help("an operation's output must not alias its inputs; use a separate buffer");
  return out;
}

}  // namespace vx::check::own
