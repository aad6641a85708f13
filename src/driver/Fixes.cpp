#include "driver/Fixes.h"

#include <algorithm>
#include <map>

namespace vx::driver {

std::vector<FixEdit> fixEdits(const diag::Suggestion& s) {
  std::vector<FixEdit> out;
  for (const diag::SuggestionPart& p : s.parts()) {
    if (p.span.begin > p.span.end) return {};
    out.push_back(FixEdit{p.span.begin, p.span.end, p.replacement});
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const FixEdit& a, const FixEdit& b) { return a.begin != b.begin ? a.begin < b.begin : a.end < b.end; });
  for (size_t i = 1; i < out.size(); ++i)
    if (out[i].begin < out[i - 1].end || (out[i].begin == out[i - 1].begin && out[i].begin == out[i].end &&
                                          out[i - 1].begin == out[i - 1].end))
      return {};
  return out;
}

std::string applyFixEdits(const std::string& text, std::vector<FixEdit> edits) {
  std::stable_sort(edits.begin(), edits.end(),
                   [](const FixEdit& a, const FixEdit& b) { return a.begin != b.begin ? a.begin < b.begin : a.end < b.end; });
  std::string out;
  uint32_t at = 0;
  for (const FixEdit& e : edits) {
    if (e.begin < at || e.end > text.size()) continue;
    out.append(text, at, e.begin - at);
    out += e.text;
    at = e.end;
  }
  out.append(text, at, std::string::npos);
  return out;
}

std::vector<std::pair<std::string, unsigned>> diagnosticCounts(const diag::Sink& sink) {
  std::map<std::string, unsigned> counts;
  for (const diag::Diagnostic& d : sink.diagnostics()) ++counts[d.code()];
  return {counts.begin(), counts.end()};
}

bool fixIsSafe(const std::string& path, const std::string& text, const std::vector<FixEdit>& edits,
               const std::string& code, const std::vector<std::pair<std::string, unsigned>>& before,
               const CheckOptions& opts) {
  if (edits.empty()) return false;
  std::string fixed = applyFixEdits(text, edits);
  base::SourceMap sources;
  base::FileId id = sources.add(path, fixed);
  diag::Sink sink;
  checkFile(sources, id, sink, opts);
  std::map<std::string, unsigned> was(before.begin(), before.end());
  bool removed = false;
  for (const auto& [c, n] : diagnosticCounts(sink)) {
    unsigned old = was.count(c) ? was[c] : 0;
    // E0206 (what the target cannot build) is reported only once no
    // ownership error is: fixing the last one can uncover it.
    if (n > old && c != "E0206") return false;
  }
  unsigned now = 0;
  for (const auto& [c, n] : diagnosticCounts(sink))
    if (c == code) now = n;
  removed = now < (was.count(code) ? was[code] : 0);
  return removed;
}

}  // namespace vx::driver
