#include <nlohmann/json.hpp>

#include "diag/ErrorDocs.h"
#include "diag/Render.h"

namespace vx::diag {

namespace {

nlohmann::json spanJson(const base::SourceMap& sources, base::Span span, bool primary,
                        const std::string* label, const Suggestion* sugg, const std::string* replacement = nullptr) {
  const base::SourceFile& f = sources.file(span.file);
  base::LineCol b = f.lineCol(span.begin), e = f.lineCol(span.end);
  nlohmann::json j{{"file_name", f.path()},
                   {"byte_start", span.begin},
                   {"byte_end", span.end},
                   {"line_start", b.line},
                   {"line_end", e.line},
                   {"column_start", b.col},
                   {"column_end", e.col},
                   {"is_primary", primary},
                   {"label", label && !label->empty() ? nlohmann::json(*label) : nullptr},
                   {"suggested_replacement", sugg ? nlohmann::json(replacement ? *replacement : sugg->replacement) : nullptr},
                   {"suggestion_applicability",
                    sugg ? nlohmann::json(applicabilityName(sugg->applicability)) : nullptr},
                   {"expansion", nullptr}};
  nlohmann::json text = nlohmann::json::array();
  for (uint32_t line = b.line; line <= e.line && line <= f.lineCount(); ++line) {
    std::string_view t = f.lineText(line);
    uint32_t start = f.lineStart(line);
    uint32_t hs = line == b.line ? b.col : 1;
    uint32_t he = line == e.line ? e.col : static_cast<uint32_t>(t.size()) + 1;
    (void)start;
    text.push_back({{"text", std::string(t)}, {"highlight_start", hs}, {"highlight_end", he}});
  }
  j["text"] = text;
  return j;
}

nlohmann::json child(const std::string& level, const std::string& message,
                     nlohmann::json spans = nlohmann::json::array()) {
  return {{"message", message}, {"code", nullptr},      {"level", level},
          {"spans", spans},     {"children", nlohmann::json::array()}, {"rendered", nullptr}};
}

}  // namespace

std::string renderJson(const Diagnostic& d, const base::SourceMap& sources) {
  nlohmann::json spans = nlohmann::json::array();
  for (const auto& l : d.labels)
    if (l.span.valid()) spans.push_back(spanJson(sources, l.span, l.primary, &l.text, nullptr));
  nlohmann::json children = nlohmann::json::array();
  for (const auto& n : d.notes) children.push_back(child("note", n));
  for (const auto& h : d.helps) children.push_back(child("help", h));
  for (const auto& s : d.suggestions) {
    nlohmann::json ss = nlohmann::json::array();
    // A multipart suggestion: one span per edit, as rustc writes them.
    for (const SuggestionPart& p : s.parts())
      if (p.span.valid()) ss.push_back(spanJson(sources, p.span, true, nullptr, &s, &p.replacement));
    children.push_back(child("help", s.message, ss));
  }
  const char* doc = errorDoc(d.code());
  nlohmann::json j{
      {"$message_type", "diagnostic"},
      {"message", d.message},
      {"code", {{"code", d.code()}, {"explanation", doc ? nlohmann::json(doc) : nullptr}}},
      {"level", d.severity() == Severity::Error ? "error" : "warning"},
      {"spans", spans},
      {"children", children},
      {"rendered", renderHuman(d, sources, false)}};
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace vx::diag
