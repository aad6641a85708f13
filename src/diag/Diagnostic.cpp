#include "diag/Diagnostic.h"

#include <algorithm>
#include <tuple>

#include "diag/DiagKinds.h"

namespace vx::diag {

namespace {
const DiagInfo kInfos[] = {
#define DIAG(Name, Code, Sev, Fmt, ...) {#Name, Code, Severity::Sev, Fmt},
#include "diag/DiagKinds.def"
#undef DIAG
};
}  // namespace

const DiagInfo& info(DiagId id) { return kInfos[static_cast<size_t>(id)]; }

std::vector<std::string> allCodes() {
  std::vector<std::string> codes;
  for (const auto& i : kInfos) codes.emplace_back(i.code);
  std::sort(codes.begin(), codes.end());
  codes.erase(std::unique(codes.begin(), codes.end()), codes.end());
  return codes;
}

const char* applicabilityName(Applicability a) {
  switch (a) {
    case Applicability::MachineApplicable: return "MachineApplicable";
    case Applicability::MaybeIncorrect: return "MaybeIncorrect";
    case Applicability::HasPlaceholders: return "HasPlaceholders";
    case Applicability::Unspecified: return "Unspecified";
  }
  return "Unspecified";
}

std::string detail::formatMessage(DiagId id, const std::vector<std::string>& args) {
  std::string out;
  size_t next = 0;
  for (const char* s = info(id).format; *s; ++s) {
    if (s[0] == '{' && s[1] == '}') {
      if (next < args.size()) out += args[next++];
      ++s;
    } else {
      out += *s;
    }
  }
  return out;
}

base::Span Diagnostic::primarySpan() const {
  for (const auto& l : labels)
    if (l.primary) return l.span;
  return base::Span{};
}

Diagnostic& Diagnostic::primary(base::Span span, std::string label) {
  labels.push_back(Label{span, std::move(label), true});
  return *this;
}
Diagnostic& Diagnostic::secondary(base::Span span, std::string label) {
  // A secondary label on exactly the primary span adds nothing but clutter.
  for (const auto& l : labels)
    if (l.primary && l.span.file == span.file && l.span.begin == span.begin && l.span.end == span.end) return *this;
  labels.push_back(Label{span, std::move(label), false});
  return *this;
}
Diagnostic& Diagnostic::note(std::string text) {
  notes.push_back(std::move(text));
  return *this;
}
Diagnostic& Diagnostic::help(std::string text) {
  helps.push_back(std::move(text));
  return *this;
}
Diagnostic& Diagnostic::suggest(std::string message, base::Span span, std::string replacement,
                                Applicability a) {
  suggestions.push_back(Suggestion{std::move(message), span, std::move(replacement), a, {}});
  return *this;
}
Diagnostic& Diagnostic::suggestParts(std::string message, std::vector<SuggestionPart> parts, Applicability a) {
  Suggestion s{std::move(message), parts.front().span, std::move(parts.front().replacement), a, {}};
  s.more.assign(std::make_move_iterator(parts.begin() + 1), std::make_move_iterator(parts.end()));
  suggestions.push_back(std::move(s));
  return *this;
}
std::vector<SuggestionPart> Suggestion::parts() const {
  std::vector<SuggestionPart> all{{span, replacement}};
  all.insert(all.end(), more.begin(), more.end());
  return all;
}

}  // namespace vx::diag
