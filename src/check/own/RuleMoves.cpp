// E6001: a move-only value (a tensor, a Vec, an on-chip buffer) used after it
// was moved.
#include "check/own/Report.h"

namespace vx::check::own {

diag::Diagnostic renderUseAfterMove(const ReportContext& a, const Decided& d) {
  const Finding& f = d.f;
  diag::Diagnostic out = diag::UseAfterMove(f.subject);
  out.primary(f.at, "value used here after move");
  if (!f.earlier.empty()) out.secondary(f.earlier.front(), "value moved here");
  if (f.earlierIteration || (f.earlier.empty() && f.inLoop))
    out.note("`" + f.subject + "` is moved here in an earlier iteration of the loop, and not assigned again");
  if (!d.pathNote.empty()) out.note(d.pathNote);
  out.note("`" + f.subject + "` has type `" + f.type + "`, which is moved, not copied");
  (void)a;
  return out;
}

}  // namespace vx::check::own
