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
  std::string text = it->second.text;
  for (const json& c : changes) {
    std::string replacement = c["text"].get<std::string>();
    if (c.contains("range"))
      applyChange(text, positionField(c["range"], "start"), positionField(c["range"], "end"), replacement);
    else
      text = std::move(replacement);
  }
  it->second.text = std::move(text);
  if (td.contains("version") && td["version"].is_number_integer()) it->second.version = td["version"].get<int64_t>();
  documentChanged(s, uri);
}

}  // namespace vx::lsp
