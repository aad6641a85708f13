// Reporting: each finding is decided by the solver after the walk; the
// rules (one file each) turn the decided findings into diagnostics.
#pragma once

#include <string>

#include "check/own/Analysis.h"
#include "diag/DiagKinds.h"

namespace vx::check::own {

// What a rule gets to word one diagnostic.
struct Decided {
  const Finding& f;
  const smt::Model& model;
  std::string counterexample;  // the model in SMT-LIB form, "" if none
  std::string pathNote;        // "on the path (...)" when the violation depends on the path
  std::vector<std::string> alsoNotes;  // consequences of the same mistake, not reported apart
};

diag::Diagnostic renderUseAfterMove(Analysis& a, const Decided& d);   // RuleMoves.cpp
diag::Diagnostic renderConsumedTwice(Analysis& a, const Decided& d);  // RuleTokens.cpp
diag::Diagnostic renderBehindRef(Analysis& a, const Decided& d);      // RuleTokens.cpp
diag::Diagnostic renderDropped(Analysis& a, const Decided& d);        // RuleTokens.cpp
diag::Diagnostic renderHazard(Analysis& a, const Decided& d);         // RuleHazards.cpp
diag::Diagnostic renderConflict(Analysis& a, const Decided& d);       // RuleBorrows.cpp

// "token created here" labels for the copies a token may hold.
void labelCreations(Analysis& a, diag::Diagnostic& d, const Holds& holds, const char* label);
// The value of `name` in the model, or "".
std::string modelValue(const smt::Model& m, const std::string& name);
// The line of `s` in a message, as a marker (lineMarker) that
// checkOwnership turns into the number when it hands the diagnostic on:
// a cached diagnostic of a function that moved gets its new line.
std::string lineOf(const Analysis& a, base::Span s);
// "\x01FILE:OFFSET\x02": where a line number goes once the span's final
// place is known (resolveLineMarkers in Ownership.cpp).
inline std::string lineMarker(base::Span s) {
  return "\x01" + std::to_string(s.file.index) + ":" + std::to_string(s.begin) + "\x02";
}

}  // namespace vx::check::own
