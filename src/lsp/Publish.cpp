// vxc's diagnostics as LSP diagnostics: the primary span is the range, the
// secondary labels are related information, notes and help follow the
// message, `codeDescription` links the error page, and the suggestions ride
// along in `data` for textDocument/codeAction.
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "base/Text.h"
#include "base/Source.h"
#include "diag/ErrorDocs.h"
#include "diag/Sink.h"
#include "driver/Pipeline.h"
#include "lsp/Checker.h"
#include "lsp/Position.h"
#include "lsp/State.h"

namespace vx::lsp {

namespace fs = std::filesystem;

json rangeJson(const LineIndex& index, uint32_t begin, uint32_t end) {
  Position a = index.position(begin), b = index.position(end);
  return json{{"start", {{"line", a.line}, {"character", a.character}}},
              {"end", {{"line", b.line}, {"character", b.character}}}};
}

namespace {

// The error page of `code` as a file an editor can open: the page embedded
// in vxc, written once under $XDG_CACHE_HOME/vxc (or ~/.cache/vxc). Empty
// when there is no page or no writable cache.
std::string errorPageUri(const std::string& code) {
  const char* page = diag::errorDoc(code);
  if (!page) return {};
  fs::path dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    dir = xdg;
  else if (const char* home = std::getenv("HOME"); home && *home)
    dir = fs::path(home) / ".cache";
  else
    return {};
  dir = dir / "vxc" / driver::version() / "errors";
  fs::path file = dir / (code + ".md");
  std::error_code ec;
  if (!fs::exists(file, ec)) {
    fs::create_directories(dir, ec);
    // A name of its own per writer: the checker's two threads, or a
    // second server, may write the same page at once.
    static std::atomic<uint64_t> writes{0};
    fs::path tmp = dir / (code + ".md." + std::to_string(::getpid()) + "." + std::to_string(writes++) + ".tmp");
    {
      std::ofstream o(tmp, std::ios::binary);
      o << page;
      if (!o) return {};
    }
    fs::rename(tmp, file, ec);  // atomic: a second server never sees half a page
    if (ec) {
      std::error_code ignored;
      fs::remove(tmp, ignored);
      if (!fs::exists(file)) return {};
    }
  }
  return "file://" + fs::absolute(file, ec).string();
}

}  // namespace

json diagnosticsJson(const std::string& uri, const std::string& text, base::FileId file,
                     const std::vector<diag::Diagnostic>& diagnostics) {
  json diags = json::array();
  LineIndex index(text);
  auto here = [&](base::Span sp) { return sp.valid() && sp.file == file; };
  for (const diag::Diagnostic& d : diagnostics) {
    json j;
    base::Span at = d.primarySpan();
    j["range"] = here(at) ? rangeJson(index, at.begin, at.end) : rangeJson(index, 0, 0);
    j["severity"] = d.severity() == diag::Severity::Error ? 1 : 2;
    j["code"] = d.code();
    if (std::string page = errorPageUri(d.code()); !page.empty()) j["codeDescription"] = {{"href", page}};
    j["source"] = "vxc";
    std::string message = d.message;
    for (const diag::Label& l : d.labels)
      if (l.primary && !l.text.empty()) message += "\n" + l.text;
    for (const std::string& n : d.notes) message += "\nnote: " + n;
    for (const std::string& h : d.helps) message += "\nhelp: " + h;
    for (const diag::Suggestion& sg : d.suggestions) message += "\nhelp: " + sg.message;
    j["message"] = message;
    json related = json::array();
    for (const diag::Label& l : d.labels)
      if (!l.primary && here(l.span))
        related.push_back({{"location", {{"uri", uri}, {"range", rangeJson(index, l.span.begin, l.span.end)}}},
                           {"message", l.text.empty() ? d.message : l.text}});
    if (!related.empty()) j["relatedInformation"] = related;
    // Suggestions without placeholders become quick fixes.
    json fixes = json::array();
    for (const diag::Suggestion& sg : d.suggestions) {
      bool all = sg.applicability != diag::Applicability::HasPlaceholders;
      for (const diag::SuggestionPart& p : sg.parts()) all = all && here(p.span);
      if (!all) continue;
      json fix = {{"title", sg.message},
                  {"range", rangeJson(index, sg.span.begin, sg.span.end)},
                  {"newText", base::withLineEnds(sg.replacement, text, sg.span.begin)},
                  {"preferred", sg.applicability == diag::Applicability::MachineApplicable}};
      // The other edits of a multipart suggestion, applied with the first.
      if (!sg.more.empty()) {
        json more = json::array();
        for (const diag::SuggestionPart& p : sg.more)
          more.push_back({{"range", rangeJson(index, p.span.begin, p.span.end)}, {"newText", base::withLineEnds(p.replacement, text, p.span.begin)}});
        fix["more"] = more;
      }
      fixes.push_back(std::move(fix));
    }
    if (!fixes.empty()) j["data"] = {{"fixes", fixes}};
    diags.push_back(std::move(j));
  }
  return diags;
}

void publishDiagnostics(State& s, const std::string& uri) {
  auto it = s.docs.find(uri);
  if (it == s.docs.end()) {
    s.checks.erase(uri);
    notify(s, "textDocument/publishDiagnostics", {{"uri", uri}, {"diagnostics", json::array()}});
    return;
  }
  CheckRequest r;
  r.uri = uri;
  r.text = it->second.text;
  r.version = it->second.version;
  checkDocument(s, s.checks[uri], r);
}

}  // namespace vx::lsp
