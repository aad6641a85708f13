#include <cctype>

#include <nlohmann/json.hpp>

#include "diag/ErrorDocs.h"
#include "diag/Render.h"

namespace vx::diag {

namespace {

// A file's path as SARIF's `uri` (RFC 3986): every byte but the unreserved
// ones and `/` percent-encoded (a space, `#`, `%`, bytes that are not
// UTF-8), an absolute path as a `file://` URI, a relative one as a
// relative reference.
std::string pathUri(const std::string& path) {
  static const char* hex = "0123456789ABCDEF";
  std::string out = !path.empty() && path[0] == '/' ? "file://" : "";
  for (unsigned char c : path) {
    bool keep = std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '/';
    if (keep && c < 0x80) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

}  // namespace

std::string renderSarif(const std::vector<Diagnostic>& diags, const base::SourceMap& sources,
                        const std::string& toolVersion) {
  auto location = [&](base::Span span) {
    const base::SourceFile& f = sources.file(span.file);
    base::LineCol b = f.lineCol(span.begin), e = f.lineCol(span.end);
    return nlohmann::json{
        {"physicalLocation",
         {{"artifactLocation", {{"uri", pathUri(f.path())}}},
          {"region",
           {{"startLine", b.line},
            {"startColumn", b.col},
            {"endLine", e.line},
            {"endColumn", e.col},
            {"byteOffset", span.begin},
            {"byteLength", span.end - span.begin}}}}}};
  };
  nlohmann::json rules = nlohmann::json::array();
  for (const auto& code : allCodes()) {
    nlohmann::json r{{"id", code}, {"shortDescription", {{"text", errorSummary(code)}}}};
    if (const char* doc = errorDoc(code)) r["help"] = {{"text", doc}, {"markdown", doc}};
    rules.push_back(r);
  }
  nlohmann::json results = nlohmann::json::array();
  for (const auto& d : diags) {
    nlohmann::json r{{"ruleId", d.code()},
                     {"level", d.severity() == Severity::Error ? "error" : "warning"},
                     {"message", {{"text", d.message}}}};
    nlohmann::json locs = nlohmann::json::array(), related = nlohmann::json::array();
    int id = 0;
    for (const auto& l : d.labels) {
      if (!l.span.valid()) continue;
      if (l.primary) {
        locs.push_back(location(l.span));
      } else {
        nlohmann::json rl = location(l.span);
        rl["id"] = id++;
        rl["message"] = {{"text", l.text}};
        related.push_back(rl);
      }
    }
    r["locations"] = locs;
    if (!related.empty()) r["relatedLocations"] = related;
    nlohmann::json fixes = nlohmann::json::array();
    for (const auto& s : d.suggestions) {
      if (!s.span.valid() || s.applicability != Applicability::MachineApplicable) continue;
      const base::SourceFile& f = sources.file(s.span.file);
      nlohmann::json replacements = nlohmann::json::array();
      for (const SuggestionPart& p : s.parts())
        replacements.push_back({{"deletedRegion", {{"byteOffset", p.span.begin}, {"byteLength", p.span.end - p.span.begin}}},
                                {"insertedContent", {{"text", p.replacement}}}});
      fixes.push_back({{"description", {{"text", s.message}}},
                       {"artifactChanges", {{{"artifactLocation", {{"uri", pathUri(f.path())}}}, {"replacements", replacements}}}}});
    }
    if (!fixes.empty()) r["fixes"] = fixes;
    std::string notes;
    for (const auto& n : d.notes) notes += "note: " + n + "\n";
    for (const auto& h : d.helps) notes += "help: " + h + "\n";
    if (!notes.empty()) r["message"]["markdown"] = d.message + "\n\n" + notes;
    results.push_back(r);
  }
  nlohmann::json log{
      {"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
      {"version", "2.1.0"},
      {"runs",
       {{{"tool", {{"driver", {{"name", "vxc"}, {"version", toolVersion}, {"rules", rules}}}}},
         {"columnKind", "unicodeCodePoints"},
         {"results", results}}}}};
  return log.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace vx::diag
