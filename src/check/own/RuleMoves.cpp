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

// E6014: a buffer taken by value out of a place that keeps it (a ring's slot,
// a Vec's element, a block, what a reference points to), to be kept.
diag::Diagnostic renderMoveOut(const ReportContext& a, const Decided& d) {
  const Finding& f = d.f;
  // A pipelined loop's copy (src/check/SemaPipeline.cpp): its name, as
  // written, stands for the trip's slot of the ring the loop derives.
  bool pipelined = !f.subject.empty() && f.subject.find_first_of("[]*.(&") == std::string::npos &&
                   f.other.rfind("an index of", 0) == 0;
  diag::Diagnostic out =
      diag::MoveOutOfPlace(f.subject, pipelined ? "the ring slot the `pipeline` loop keeps it in" : f.other);
  out.primary(f.at, "moved out of its place here, to be kept");
  out.note("`" + f.subject + "` has type `" + f.type + "`, which is moved, not copied; its place keeps the data, so "
           "the moved value would be a second name for it, through which a copy into the place, a write to it or "
           "another instance of a grid could change what it holds unseen");
  if (pipelined)
    out.note("in a `pipeline` loop, `" + f.subject + "` is the trip's slot of a ring that later trips copy into");
  out.help("use it where it is: borrow it (`&" + f.subject + "`), or pass it to an operator that reads it; or copy "
           "it into a buffer of its own: `transfer(&" + f.subject + ", Memory::VMEM)`");
  (void)a;
  return out;
}

}  // namespace vx::check::own
