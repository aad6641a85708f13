// `textDocument/didChange`: incremental (a range and its new text) or full
// changes, applied in order. Every change is validated before any is
// applied, so a bad message leaves the document as it was: no edit is lost
// half-way, and the editor's next full sync repairs any disagreement.
#include "lsp/Methods.h"
#include "lsp/Position.h"

namespace vx::lsp {

namespace {
Position positionField(const json& obj, const char* name) {
  const json& p = field(obj, name);
  return Position{uintField(p, "line"), uintField(p, "character")};
}
}  // namespace

void didChange(State& s, const json& params) {
  const json& td = field(params, "textDocument");
  std::string uri = stringField(td, "uri");
  auto it = s.docs.find(uri);
  if (it == s.docs.end()) throw BadParams{"`" + uri + "` is not open"};
  const json& changes = field(params, "contentChanges");
  if (!changes.is_array()) throw BadParams{"`contentChanges` is not an array"};
  for (const json& c : changes) {
    stringField(c, "text");
    if (c.contains("range")) {
      positionField(c["range"], "start");
      positionField(c["range"], "end");
    }
  }
  std::vector<TextChange> list;
  list.reserve(changes.size());
  for (const json& c : changes) {
    TextChange t;
    t.text = c["text"].get<std::string>();
    t.whole = !c.contains("range");
    if (!t.whole) {
      t.start = positionField(c["range"], "start");
      t.end = positionField(c["range"], "end");
    }
    list.push_back(std::move(t));
  }
  // A reversed range is a bad change: the document stays as it was.
  std::string text = it->second.text;
  if (!applyChanges(text, list)) throw BadParams{"a change's range ends before it starts"};
  it->second.text = std::move(text);
  if (td.contains("version") && td["version"].is_number_integer()) {
    int64_t version = td["version"].get<int64_t>();
    if (version <= it->second.version)
      logLine(s, "`" + uri + "`: version " + std::to_string(version) + " after " + std::to_string(it->second.version) +
                     " (versions increase with each change); applied");
    it->second.version = version;
  }
  documentChanged(s, uri);
}

}  // namespace vx::lsp
