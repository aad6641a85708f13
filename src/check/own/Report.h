// Reporting: each finding is decided by the solver after the walk; the
// rules (one file each) turn the decided findings into diagnostics.
#pragma once

#include <string>

#include "check/own/Analysis.h"
#include "diag/DiagKinds.h"

namespace vx::check::own {

// What a rule gets to word one diagnostic: the decided finding, and the
// function's findings as const data (never the analysis).
struct Decided {
  const Finding& f;
  const smt::Model& model;
  std::string counterexample;  // the model in SMT-LIB form, "" if none
  std::string pathNote;        // "on the path (...)" when the violation depends on the path
  std::vector<std::string> alsoNotes;  // consequences of the same mistake, not reported apart
  // E6003: the token is in flight on every path that reaches the drop (a
  // `wait` there is the fix; elsewhere it might consume it twice).
  bool everywhere = false;
};

struct ReportContext {
  const hir::Program& prog;
  const base::SourceMap& sources;
  const hir::Function& fn;
  target::TargetKind target;
  const std::vector<Transfer>& transfers;
  const TermStore& terms;
};

diag::Diagnostic renderUseAfterMove(const ReportContext& a, const Decided& d);   // RuleMoves.cpp
diag::Diagnostic renderMoveOut(const ReportContext& a, const Decided& d);       // RuleMoves.cpp
diag::Diagnostic renderConsumedTwice(const ReportContext& a, const Decided& d);  // RuleTokens.cpp
diag::Diagnostic renderBehindRef(const ReportContext& a, const Decided& d);      // RuleTokens.cpp
diag::Diagnostic renderDropped(const ReportContext& a, const Decided& d);        // RuleTokens.cpp
diag::Diagnostic renderHazard(const ReportContext& a, const Decided& d);         // RuleHazards.cpp
diag::Diagnostic renderConflict(const ReportContext& a, const Decided& d);       // RuleBorrows.cpp
diag::Diagnostic renderFootprint(const ReportContext& a, const Decided& d);      // RuleFootprint.cpp
diag::Diagnostic renderBlockBounds(const ReportContext& a, const Decided& d);    // RuleBounds.cpp
diag::Diagnostic renderGridRace(const ReportContext& a, const Decided& d);       // RuleGrid.cpp

// "token created here" labels for the copies a token may hold.
void labelCreations(const ReportContext& a, diag::Diagnostic& d, const Holds& holds, const char* label);
// The value of `name` in the model, or "".
std::string modelValue(const smt::Model& m, const std::string& name);
// The line of `s` in a message, as a marker (lineMarker) that
// checkOwnership turns into the number when it hands the diagnostic on:
// a cached diagnostic of a function that moved gets its new line.
std::string lineOf(base::Span s);
// "\x01FILE:OFFSET\x02": where a line number goes once the span's final
// place is known (resolveLineMarkers in Ownership.cpp).
inline std::string lineMarker(base::Span s) {
  return "\x01" + std::to_string(s.file.index) + ":" + std::to_string(s.begin) + "\x02";
}

}  // namespace vx::check::own
