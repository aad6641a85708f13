// E6004 (stale read), E6005 (write to a copy's destination or source) and
// E6006 (a copy's buffer moved or freed): accesses to memory a copy in
// flight still reads or writes.
#include "check/own/Report.h"

namespace vx::check::own {

namespace {

const char* howWord(AccessHow h) {
  switch (h) {
    case AccessHow::Move: return "moved";
    case AccessHow::Free: return "dropped";
    case AccessHow::Write: return "written";
    case AccessHow::CopyWrite: return "written by a copy";
    case AccessHow::Read:
    case AccessHow::CopyRead: return "read";
  }
  return "used";
}

// The execution in source terms: the values of the source variables, which
// slot is read and which is still being written.
std::string execution(Analysis& a, const Decided& d) {
  const Finding& f = d.f;
  std::string vars;
  for (const auto& s : f.show) {
    std::string v = modelValue(d.model, s.name);
    if (v.empty() || s.name.find(".len()") != std::string::npos) continue;
    vars += (vars.empty() ? "" : ", ") + std::string("`") + s.name + " = " + v + "`";
  }
  const Transfer& tr = a.transfers[f.transfer];
  std::string copy = "the copy " + std::string(f.viaDst ? "into" : "from") + " `" + f.other + "`" +
                     (tr.span.valid() ? " started at line " + std::to_string(lineOf(a, tr.span)) : "");
  if (tr.origin == Origin::Havoc) copy += " in an earlier iteration";
  std::string slot = modelValue(d.model, "slot_read");
  std::string what = f.rule == Rule::StaleRead ? "read" : "accessed";
  std::string out = vars.empty() ? "in this execution" : "when " + vars;
  if (!slot.empty())
    return out + ", `" + f.subject + "` is slot " + slot + ", and " + copy + " is still " +
           (f.viaDst ? "writing" : "reading") + " slot " + slot + " when it is " + what;
  return out + ", " + copy + " is still in flight when `" + f.subject + "` is " + what;
}

}  // namespace

diag::Diagnostic renderHazard(Analysis& a, const Decided& d) {
  const Finding& f = d.f;
  const Transfer& tr = a.transfers[f.transfer];
  diag::Diagnostic out;
  std::string started = (f.viaDst ? "transfer into `" : "transfer from `") + f.other + "` started here";
  if (tr.origin == Origin::Havoc) started += " in an earlier iteration";
  std::string token = !f.holder.empty() ? f.holder : tr.name;
  switch (f.rule) {
    case Rule::StaleRead:
      out = diag::StaleRead(f.subject);
      out.primary(f.at, f.related.valid() ? "passed here to a function that reads it while the transfer may be in flight"
                                          : "read here while the transfer may be in flight");
      break;
    case Rule::HazardWrite:
      out = diag::HazardWrite(f.subject, f.viaDst ? "into" : "reading");
      out.primary(f.at, std::string(f.related.valid() ? "passed here to a function that writes it" : "written here") +
                            (f.viaDst ? " while a transfer writes it" : " while a transfer reads it"));
      break;
    case Rule::SourcePinned:
      out = f.viaDst ? diag::DestinationMoved(f.subject, howWord(f.access)) : diag::SourceMoved(f.subject, howWord(f.access));
      out.primary(f.at, std::string(howWord(f.access)) + " here while the transfer is in flight");
      break;
    case Rule::UseAfterMove:
    case Rule::ConsumedTwice:
    case Rule::BehindRef:
    case Rule::Dropped:
    case Rule::Conflict: break;
  }
  if (tr.span.valid()) out.secondary(tr.span, started);
  if (f.related.valid()) out.secondary(f.related, f.relatedLabel);
  if (!d.counterexample.empty()) out.note("z3 counterexample: " + d.counterexample);
  if (f.slotRead.valid() && f.slotInFlight.valid())
    out.note("the slot " + std::string(f.rule == Rule::StaleRead ? "read" : "accessed") + ", `" + f.subject +
             "`, may be the slot still being " + (f.viaDst ? "written" : "read") + ", `" + f.other + "`");
  if (!f.show.empty() || f.slotRead.valid()) out.note(execution(a, d));
  for (const std::string& n : d.alsoNotes) out.note(n);
  if (token.empty())
    out.help("wait for the transfer first");
  else if (f.rule == Rule::StaleRead)
    out.help("wait first: `wait(" + token + ");`");
  else if (f.rule == Rule::HazardWrite)
    out.help("wait for `" + token + "` before writing");
  else
    out.help("wait for `" + token + "` first");
  return out;
}

}  // namespace vx::check::own
