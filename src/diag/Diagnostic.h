// A diagnostic: kind (from DiagKinds.def), message, labelled spans, notes,
// help and suggestions. Phases build these through the typed constructors in
// DiagKinds.h; renderers (Render.h) turn them into text, JSON or SARIF.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/Source.h"

namespace vx::diag {

enum class Severity : uint8_t { Error, Warning };
// The level of a lint (Lint.h).
enum class LintLevel : uint8_t { Allow, Warn, Deny };

enum class DiagId : uint16_t {
#define DIAG(Name, Code, Sev, Fmt, ...) Name,
#include "diag/DiagKinds.def"
#undef DIAG
  Count_
};

struct DiagInfo {
  const char* name;
  const char* code;
  Severity severity;
  const char* format;
};
const DiagInfo& info(DiagId id);
// Every distinct code in the table, sorted.
std::vector<std::string> allCodes();

struct Label {
  base::Span span;
  std::string text;
  bool primary = false;
};

// rustc's applicability levels; only MachineApplicable fixes are applied by
// tools without asking.
enum class Applicability : uint8_t { MachineApplicable, MaybeIncorrect, HasPlaceholders, Unspecified };
const char* applicabilityName(Applicability a);

// One edit of a suggestion.
struct SuggestionPart {
  base::Span span;
  std::string replacement;
};

struct Suggestion {
  std::string message;     // shown as `help: <message>`
  base::Span span;         // what to replace (empty span = insertion point)
  std::string replacement;
  Applicability applicability = Applicability::MachineApplicable;
  // Further edits that go with the first, all or none (rustc's multipart
  // suggestions: move a statement = insert it here, delete it there), in
  // source order and not overlapping.
  std::vector<SuggestionPart> more;
  // Every edit, the first one included.
  std::vector<SuggestionPart> parts() const;
};

struct Diagnostic {
  DiagId id{};
  std::string message;
  std::vector<Label> labels;
  std::vector<std::string> notes;
  std::vector<std::string> helps;
  std::vector<Suggestion> suggestions;
  // Lints (Lint.h): the level an attribute on the function sets, and
  // where; the level applied, once known.
  std::optional<LintLevel> attrLevel;
  base::Span attrSpan;
  // The level `#[allow/warn/deny(warnings)]` on the function sets for the
  // lints it leaves at `warn`, and where.
  std::optional<LintLevel> attrWarnings;
  base::Span attrWarningsSpan;
  std::optional<Severity> levelOverride;

  const char* code() const { return info(id).code; }
  Severity severity() const { return levelOverride ? *levelOverride : info(id).severity; }
  // The primary span; invalid when the diagnostic has no location.
  base::Span primarySpan() const;

  Diagnostic& primary(base::Span span, std::string label = {});
  Diagnostic& secondary(base::Span span, std::string label);
  Diagnostic& note(std::string text);
  Diagnostic& help(std::string text);
  Diagnostic& suggest(std::string message, base::Span span, std::string replacement,
                      Applicability a = Applicability::MachineApplicable);
  // A suggestion of several edits applied together (`parts` not empty).
  Diagnostic& suggestParts(std::string message, std::vector<SuggestionPart> parts,
                           Applicability a = Applicability::MachineApplicable);
};

}  // namespace vx::diag
