// `textDocument/documentSymbol`: the document's functions and consts, from
// the parser (Outline.h), with their headers as details.
#include "lsp/Methods.h"
#include "lsp/Outline.h"
#include "lsp/Position.h"

namespace vx::lsp {

json documentSymbol(State& s, const json& params) {
  std::string uri = stringField(field(params, "textDocument"), "uri");
  auto doc = s.docs.find(uri);
  if (doc == s.docs.end()) return json::array();
  const std::string& text = doc->second.text;
  LineIndex index(text);
  json out = json::array();
  for (const OutlineItem& it : outline(pathOf(uri), text)) {
    constexpr int kFunction = 12, kConstant = 14;  // LSP SymbolKind
    out.push_back({{"name", it.name},
                   {"detail", it.header},
                   {"kind", it.kind == OutlineItem::Kind::Fn ? kFunction : kConstant},
                   {"range", rangeJson(index, it.begin, it.end)},
                   {"selectionRange", rangeJson(index, it.nameBegin, it.nameEnd)}});
  }
  return out;
}

}  // namespace vx::lsp
