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
int lineOf(const Analysis& a, base::Span s);

}  // namespace vx::check::own
